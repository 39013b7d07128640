/**
 * A Lambda-like environment with every variable a handler reads at import (values shaped like the deployed ones):
 * the hub's functions' and the spoke ingest's (SPOKE_ACCOUNT, its own account). test/infra/bench-init.test.ts
 * imports every shipped bundle with it (and checks it against every handler's environment schema); tests that
 * import a handler module give it the variables they do not set themselves ({@link withLambdaEnv}).
 */
export const LAMBDA_ENV: Readonly<Record<string, string>> = {
  AWS_REGION: 'eu-west-1',
  AWS_DEFAULT_REGION: 'eu-west-1',
  AWS_LAMBDA_FUNCTION_NAME: 'pod-doctor-bench',
  AWS_LAMBDA_FUNCTION_MEMORY_SIZE: '256',
  AWS_ACCESS_KEY_ID: 'AKIDEXAMPLE',
  AWS_SECRET_ACCESS_KEY: 'bench',
  POWERTOOLS_SERVICE_NAME: 'pod-doctor',
  POWERTOOLS_METRICS_NAMESPACE: 'PodDoctor',
  INCIDENT_TABLE_NAME: 'pod-doctor-incidents',
  CHANGE_TABLE_NAME: 'pod-doctor-incidents',
  EVIDENCE_BUCKET_NAME: 'pod-doctor-evidence',
  INCIDENT_WINDOW_MINUTES: '30',
  WORKFLOW_ARN: 'arn:aws:states:eu-west-1:111122223333:stateMachine:pod-doctor',
  CLUSTERS: '["demo"]',
  WATCHED_CLUSTERS: '["demo"]',
  LOG_GROUP_CLUSTERS: '{"/aws/containerinsights/demo/dataplane":"demo"}',
  SPOKE_ACCOUNT: '111122223333',
  NODE_OPTIONS: '--enable-source-maps',
  HISTORY_RETENTION_DAYS: '365',
  CONFIG_TABLE_NAME: 'pod-doctor-config',
  CONFIG_VERSION: '0123456789abcdef',
  TOPIC_ARN: 'arn:aws:sns:eu-west-1:111122223333:pod-doctor',
  APPROVAL_SECRET_ARN: 'arn:aws:secretsmanager:eu-west-1:111122223333:secret:pod-doctor-approval-AbC123',
  CALLBACK_URL: 'https://abcdefghij.lambda-url.eu-west-1.on.aws/',
  APPROVAL_TIMEOUT_MINUTES: '60',
  EVIDENCE_BUCKET: 'pod-doctor-evidence',
  WATCH_SECONDS: '50',
};

/** Sets each variable of {@link LAMBDA_ENV} that `env` lacks (a test's own values stay), before a handler module is imported. */
export function withLambdaEnv(env: NodeJS.ProcessEnv = process.env): void {
  for (const [k, v] of Object.entries(LAMBDA_ENV)) if (env[k] === undefined) env[k] = v;
}
