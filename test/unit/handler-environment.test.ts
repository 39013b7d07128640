import { execFileSync } from 'node:child_process';
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { EnvironmentError, readEnvironment } from '../../lambdas/aws/runtime/environment.js';
import { environmentProblems, HANDLER_VARIABLES } from '../../lambdas/core/contract/handler-environment.js';
import { PROJECT_ROOT } from '../../lib/constructs/paths.js';

/**
 * One environment schema per handler (issue 37): the handler parses it at start-up and fails there,
 * naming the variable; lib/ refuses at synth a function whose variables are not its handler's schema.
 */

const COMMON = { POWERTOOLS_SERVICE_NAME: 'pod-doctor', POWERTOOLS_METRICS_NAMESPACE: 'PodDoctor', NODE_OPTIONS: '-' };

describe('handler environments', () => {
  it('every handler of lambdas/handlers has a schema, and every schema a handler', () => {
    const handlers = readdirSync(join(PROJECT_ROOT, 'lambdas', 'handlers'))
      .filter((f) => f.endsWith('.ts'))
      .map((f) => f.replace(/\.ts$/, ''))
      .sort();
    expect(Object.keys(HANDLER_VARIABLES).sort()).toEqual(handlers);
  });

  it('a handler started without a variable it needs fails at start-up, naming the variable', () => {
    const env = { ...COMMON, AWS_REGION: 'eu-west-1', CONFIG_TABLE_NAME: 't', CONFIG_VERSION: 'v' };
    expect(
      readEnvironment('approval-request', {
        ...env,
        APPROVAL_SECRET_ARN: 'a',
        TOPIC_ARN: 't',
        CALLBACK_URL: 'u',
        APPROVAL_TIMEOUT_MINUTES: '60',
      }).APPROVAL_TIMEOUT_MINUTES,
    ).toBe(60);
    const missing = () =>
      readEnvironment('approval-request', {
        ...env,
        APPROVAL_SECRET_ARN: 'a',
        CALLBACK_URL: 'u',
        APPROVAL_TIMEOUT_MINUTES: '60',
      });
    expect(missing).toThrow(EnvironmentError);
    expect(missing).toThrow(/TOPIC_ARN/);
    // No Region fallback: Lambda always sets it, so its absence is an error, not 'us-east-1'.
    expect(() => readEnvironment('kubernetes', COMMON)).toThrow(/AWS_REGION/);
    expect(() => readEnvironment('notices', { ...COMMON, AWS_REGION: 'eu-west-1', EVIDENCE_BUCKET: '' })).toThrow(
      /EVIDENCE_BUCKET/,
    );
  });

  it('names what lib/ left out and what it set that the handler never reads', () => {
    expect(environmentProblems('notices', [...Object.keys(COMMON), 'EVIDENCE_BUCKET'])).toEqual([]);
    expect(environmentProblems('notices', [...Object.keys(COMMON), 'EVIDENCE_BUCKET_NAME'])).toEqual([
      'EVIDENCE_BUCKET is missing (the notices handler requires it)',
      'EVIDENCE_BUCKET_NAME is set, but the notices handler does not read it',
    ]);
    expect(environmentProblems('no-such-handler', [])).toEqual(['no environment schema for handler "no-such-handler"']);
  });

  it('no function code reads process.env but the environment parser and the SDK-standard chains', () => {
    const reads = execFileSync('git', ['grep', '--untracked', '-l', 'process\\.env', '--', 'lambdas'], {
      cwd: PROJECT_ROOT,
      encoding: 'utf8',
    })
      .trim()
      .split('\n')
      .sort();
    expect(reads).toEqual([
      // The EC2 wire client resolves Region and endpoint the way every AWS SDK client does (AWS_REGION, AWS_ENDPOINT_URL_EC2).
      'lambdas/aws/ec2/client.ts',
      'lambdas/aws/runtime/config-store.ts',
      'lambdas/aws/runtime/environment.ts',
    ]);
  });
});
