import { Logger } from '@aws-lambda-powertools/logger';
import { Metrics, MetricUnit } from '@aws-lambda-powertools/metrics';
import { Tracer } from '@aws-lambda-powertools/tracer';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { EC2Client } from '@aws-sdk/client-ec2';
import { ECRClient } from '@aws-sdk/client-ecr';
import { EKSClient } from '@aws-sdk/client-eks';
import { IAMClient } from '@aws-sdk/client-iam';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import type { Finding } from '../../core/findings.js';
import { ChangeIndex } from '../change-index.js';
import { type CheckClients, type CheckGroup, parseCheckInput, runCheckGroup } from './groups.js';

export const logger = new Logger();
export const tracer = new Tracer();
const metrics = new Metrics();

/** Throttling is retried by the SDK (standard mode, exponential backoff) before a check reports `error`. */
const CLIENT = { maxAttempts: 6 } as const;

/** SDK clients, each created on first use and then reused for the life of the execution environment. */
export function lazyClients(): CheckClients {
  let ec2: EC2Client | undefined;
  let iam: IAMClient | undefined;
  let eks: EKSClient | undefined;
  let changes: ChangeIndex | undefined;
  const ecr = new Map<string, ECRClient>();
  return {
    get ec2() {
      ec2 ??= tracer.captureAWSv3Client(new EC2Client(CLIENT));
      return ec2;
    },
    get iam() {
      iam ??= tracer.captureAWSv3Client(new IAMClient(CLIENT));
      return iam;
    },
    get eks() {
      eks ??= tracer.captureAWSv3Client(new EKSClient(CLIENT));
      return eks;
    },
    get changes() {
      changes ??= new ChangeIndex(
        DynamoDBDocumentClient.from(tracer.captureAWSv3Client(new DynamoDBClient(CLIENT))),
        process.env.CHANGE_TABLE_NAME ?? '',
      );
      return changes;
    },
    ecr(region: string) {
      let c = ecr.get(region);
      if (!c) {
        c = tracer.captureAWSv3Client(new ECRClient({ ...CLIENT, region }));
        ecr.set(region, c);
      }
      return c;
    },
  };
}

/** A Lambda handler for one check group: parse → run the checks → findings. */
export function makeCheckHandler(
  group: CheckGroup,
  clients: CheckClients = lazyClients(),
  now: () => Date = () => new Date(),
) {
  return async (event: unknown): Promise<{ group: CheckGroup; findings: Finding[] }> => {
    const input = parseCheckInput(event);
    const findings = await runCheckGroup(group, input, clients, now());
    for (const f of findings) {
      const m = metrics.singleMetric();
      m.addDimension('status', f.status);
      m.addMetric('CheckFindings', MetricUnit.Count, 1);
    }
    logger.info('checks done', { group, findings: findings.map((f) => ({ id: f.id, status: f.status })) });
    return { group, findings };
  };
}
