import { App, Stack } from 'aws-cdk-lib';
import { RetentionDays } from 'aws-cdk-lib/aws-logs';
import { describe, expect, it } from 'vitest';
import { lambdaEntry } from '../../lib/constructs/paths.js';
import { PodDoctorFunction } from '../../lib/constructs/pod-doctor-function.js';

/** lib/ builds each function's environment to its handler's schema (lambdas/core/contract/handler-environment.ts). */
describe('function environments at synth', () => {
  it('refuses the synth of a function whose variables are not its handler schema', () => {
    const synthWith = (environment: Record<string, string>) => {
      const app = new App({ context: { 'aws:cdk:bundling-stacks': [] } });
      const stack = new Stack(app, 'Env');
      new PodDoctorFunction(stack, 'Notices', {
        entry: lambdaEntry('notices'),
        logRetention: RetentionDays.ONE_DAY,
        environment,
      });
      return () => app.synth();
    };
    expect(synthWith({ EVIDENCE_BUCKET: 'b' })).not.toThrow();
    expect(synthWith({})).toThrow(/Env\/Notices: EVIDENCE_BUCKET is missing/);
    expect(synthWith({ EVIDENCE_BUCKET: 'b', EXTRA: 'x' })).toThrow(
      /EXTRA is set, but the notices handler does not read it/,
    );
  });
});
