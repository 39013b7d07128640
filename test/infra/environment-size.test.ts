import { App, Stack } from 'aws-cdk-lib';
import { RetentionDays } from 'aws-cdk-lib/aws-logs';
import { describe, expect, it } from 'vitest';
import { lambdaEntry } from '../../lib/constructs/paths.js';
import { PodDoctorFunction } from '../../lib/constructs/pod-doctor-function.js';
import { environmentProblem, resolvedLength } from '../../lib/constructs/resolved-size.js';
import { PodDoctor } from '../../lib/pod-doctor.js';

describe('Lambda’s 4 KB environment, checked at synth', () => {
  it('counts references at their resolved length: ARN 100, other attributes 70, names 60, pseudo parameters 14', () => {
    expect(resolvedLength('abc')).toBe(3);
    expect(resolvedLength({ 'Fn::GetAtt': ['Fn', 'Arn'] })).toBe(100);
    expect(resolvedLength({ 'Fn::GetAtt': ['Config', 'Version'] })).toBe(70);
    expect(resolvedLength({ Ref: 'Table' })).toBe(60);
    expect(resolvedLength({ 'Fn::Join': ['', ['arn:', { Ref: 'AWS::Partition' }, ':x']] })).toBe(4 + 14 + 2);
    expect(resolvedLength({ 'Fn::Join': [',', ['a', 'b', 'c']] })).toBe(5);
  });

  it('a function over 4 KB fails synth, naming the function and its largest variables', () => {
    const app = new App({ context: { 'aws:cdk:bundling-stacks': [] } });
    const stack = new Stack(app, 'Host');
    const podDoctor = new PodDoctor(stack, 'PodDoctor');
    new PodDoctorFunction(podDoctor, 'Big', {
      entry: lambdaEntry('verify'),
      logRetention: RetentionDays.ONE_DAY,
      environment: { CLUSTERS: 'x'.repeat(4000), SMALL: 'y' },
    });
    expect(() => app.synth()).toThrow(
      /environment of function Host\/PodDoctor\/Big is ~4\d{3} bytes.*more than 4096 bytes.*largest: CLUSTERS ~4008 B/,
    );
  });

  it('the limit is 4,096 bytes of keys and values', () => {
    expect(environmentProblem('f', { K: 'v'.repeat(4095) })).toBeUndefined();
    expect(environmentProblem('f', { K: 'v'.repeat(4096) })).toMatch(/~4097 bytes/);
  });
});
