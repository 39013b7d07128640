import { describe, expect, it } from 'vitest';
import {
  checkExecutionInput,
  checkExecutionName,
  checkFilterPattern,
  checkLambdaPayload,
  checkParameterValue,
  checkPublish,
  checkStatePayload,
} from '../../local/limits.js';

const kb = (n: number, ch = 'a') => ch.repeat(n * 1024);

describe('Step Functions limits', () => {
  it.each(['0f3a9c2e5b7d1a4c-1764410400', 'a', 'x'.repeat(80), 'prod-eu_node.i-0abc'])(
    'accepts the execution name %s',
    (n) => expect(() => checkExecutionName(n)).not.toThrow(),
  );
  it.each([
    ['empty', ''],
    ['81 characters', 'x'.repeat(81)],
    ['a space', 'a b'],
    ['a colon (the incident key form)', 'prod-eu|node:i-0abc|sandbox-image'],
    ['a slash', 'a/b'],
    ['brackets', 'a[1]'],
    ['a wildcard', 'a*'],
    ['a control character', 'a\u0007b'],
    ['a C1 control character', 'a\u0085b'],
  ])('refuses an execution name with %s (InvalidName)', (_why, n) =>
    expect(() => checkExecutionName(n)).toThrow(expect.objectContaining({ name: 'InvalidName' })),
  );
  it('execution input and state payloads: 256 KB passes, one byte more is refused', () => {
    const exactly = (bytes: number) => JSON.stringify({ p: 'a'.repeat(bytes - 8) });
    expect(exactly(262_144).length).toBe(262_144);
    expect(() => checkExecutionInput(exactly(262_144))).not.toThrow();
    expect(() => checkExecutionInput(exactly(262_145))).toThrow(
      expect.objectContaining({ name: 'InvalidExecutionInput' }),
    );
    expect(() => checkStatePayload('Decide', { p: 'a'.repeat(262_136) })).not.toThrow();
    expect(() => checkStatePayload('Decide', { p: 'a'.repeat(262_137) })).toThrow(
      expect.objectContaining({ name: 'States.DataLimitExceeded' }),
    );
  });
  it('counts UTF-8 bytes, not characters', () => {
    expect(() => checkStatePayload('x', { p: 'é'.repeat(131_070) })).toThrow(
      expect.objectContaining({ name: 'States.DataLimitExceeded' }),
    );
  });
});

describe('SNS Publish limits', () => {
  it('a subject of 99 characters passes, 100 is refused', () => {
    expect(() => checkPublish({ Subject: 's'.repeat(99), Message: 'm' })).not.toThrow();
    expect(() => checkPublish({ Subject: 's'.repeat(100), Message: 'm' })).toThrow(
      expect.objectContaining({ name: 'InvalidParameterException', message: 'Invalid parameter: Subject' }),
    );
  });
  it.each([
    ['a newline', 'line one\nline two'],
    ['a tab', 'a\tb'],
    ['non-ASCII text', 'repaired ✓'],
    ['an empty subject', ''],
  ])('refuses a subject with %s', (_why, Subject) =>
    expect(() => checkPublish({ Subject, Message: 'm' })).toThrow(
      expect.objectContaining({ name: 'InvalidParameterException' }),
    ),
  );
  it('a message of 256 KB passes, one byte more or an empty one is refused', () => {
    expect(() => checkPublish({ Message: kb(256) })).not.toThrow();
    expect(() => checkPublish({ Message: `${kb(256)}a` })).toThrow(/Message too long/);
    expect(() => checkPublish({ Message: '' })).toThrow(/Empty message/);
  });
});

describe('Lambda invocation payloads', () => {
  it('asynchronous invocations stop at 256 KB, synchronous ones at 6 MB', () => {
    const payload = (bytes: number) => 'a'.repeat(bytes - 2); // JSON string quotes
    expect(() => checkLambdaPayload(payload(262_144), 'Event')).not.toThrow();
    expect(() => checkLambdaPayload(payload(262_145), 'Event')).toThrow(
      expect.objectContaining({ name: 'RequestEntityTooLargeException' }),
    );
    expect(() => checkLambdaPayload(payload(262_145), 'RequestResponse')).not.toThrow();
    expect(() => checkLambdaPayload(payload(6_291_457), 'RequestResponse')).toThrow(
      expect.objectContaining({ name: 'RequestEntityTooLargeException' }),
    );
  });
});

describe('SSM Parameter Store values', () => {
  it('standard tier: 4096 characters, advanced 8192', () => {
    expect(() => checkParameterValue('a'.repeat(4096))).not.toThrow();
    expect(() => checkParameterValue('a'.repeat(4097))).toThrow(
      expect.objectContaining({ name: 'ValidationException' }),
    );
    expect(() => checkParameterValue('a'.repeat(8192), { tier: 'Advanced' })).not.toThrow();
  });
  it("refuses a value outside the parameter's AllowedPattern", () => {
    expect(() => checkParameterValue('off', { allowedPattern: '^(on|off)$' })).not.toThrow();
    expect(() => checkParameterValue('OFF ', { allowedPattern: '^(on|off)$' })).toThrow(
      expect.objectContaining({ name: 'ParameterPatternMismatchException' }),
    );
  });
});

describe('CloudWatch Logs subscription filter pattern', () => {
  it('1,024 characters pass, 1,025 are refused as PutSubscriptionFilter refuses them', () => {
    expect(() => checkFilterPattern('?"a"'.padEnd(1024, ' '))).not.toThrow();
    expect(() => checkFilterPattern('x'.repeat(1025))).toThrow(
      expect.objectContaining({ name: 'InvalidParameterException', message: expect.stringMatching(/filterPattern/) }),
    );
  });
});
