/**
 * Service limits the local runtime enforces as AWS does, each refusing with the error the service
 * returns. Sizes are UTF-8 bytes unless the service counts characters.
 */

/** Step Functions: state and execution input/output, task results (Standard and Express). */
export const SFN_PAYLOAD_BYTES = 262_144;
/** SNS Publish: message (all protocols). */
export const SNS_MESSAGE_BYTES = 262_144;
/** Lambda: asynchronous (Event) invocation payload; synchronous requests may be 6 MB. */
export const LAMBDA_ASYNC_PAYLOAD_BYTES = 262_144;
export const LAMBDA_SYNC_PAYLOAD_BYTES = 6_291_456;
/** SSM Parameter Store value: standard tier 4 KB, advanced 8 KB (characters). */
export const SSM_PARAMETER_VALUE_CHARS = { Standard: 4096, Advanced: 8192 } as const;

const bytes = (s: string) => Buffer.byteLength(s, 'utf8');

/** An error shaped as the SDK / Step Functions raise it. */
export function serviceError(name: string, message: string, httpStatusCode = 400): Error {
  return Object.assign(new Error(message), {
    name,
    __type: name,
    $fault: 'client',
    $metadata: { httpStatusCode, attempts: 1 },
  });
}

/** Step Functions refuses a state's input or output over 256 KB: States.DataLimitExceeded. */
export function checkStatePayload(where: string, value: unknown): void {
  const size = bytes(JSON.stringify(value ?? null));
  if (size > SFN_PAYLOAD_BYTES)
    throw serviceError(
      'States.DataLimitExceeded',
      `The state/task '${where}' returned a result with a size exceeding the maximum number of bytes service limit (${size} > ${SFN_PAYLOAD_BYTES}).`,
    );
}

/** StartExecution input over 256 KB: InvalidExecutionInput. */
export function checkExecutionInput(input: string): void {
  if (bytes(input) > SFN_PAYLOAD_BYTES)
    throw serviceError('InvalidExecutionInput', `Execution input exceeds the ${SFN_PAYLOAD_BYTES} bytes limit`);
}

/**
 * Execution names: 1–80 characters, none of whitespace, `< > { } [ ]`, `? *`, `" # % \ ^ | ~ \` $ & , ; : /`
 * or control characters (U+0000–001F, U+007F–009F): InvalidName.
 */
export function checkExecutionName(name: string): void {
  const length = [...name].length;
  if (length < 1 || length > 80)
    throw serviceError('InvalidName', `Invalid Name: '${name}' (must be 1 to 80 characters, is ${length})`);
  // biome-ignore lint/suspicious/noControlCharactersInRegex: the control characters are what is refused
  if (/[\s<>{}[\]?*"#%\\^|~`$&,;:/\u0000-\u001f\u007f-\u009f]/u.test(name))
    throw serviceError('InvalidName', `Invalid Name: '${name}'`);
}

/**
 * SNS Publish: the subject must be ASCII text, start with a letter, number or punctuation, have no
 * line breaks or control characters and be under 100 characters; the message at most 256 KB.
 */
export function checkPublish(input: { Subject?: string; Message?: string }): void {
  const subject = input.Subject;
  if (subject !== undefined) {
    // Printable ASCII only: line breaks, tabs and other control characters are refused.
    if (subject.length === 0 || subject.length >= 100 || !/^[\x20-\x7e]+$/.test(subject))
      throw serviceError('InvalidParameterException', 'Invalid parameter: Subject');
  }
  const message = input.Message ?? '';
  if (message.length === 0) throw serviceError('InvalidParameterException', 'Invalid parameter: Empty message');
  if (bytes(message) > SNS_MESSAGE_BYTES)
    throw serviceError('InvalidParameterException', 'Invalid parameter: Message too long');
}

/** Lambda Invoke: 256 KB for Event invocations, 6 MB for RequestResponse: RequestEntityTooLargeException. */
export function checkLambdaPayload(payload: unknown, invocationType: 'Event' | 'RequestResponse'): void {
  const limit = invocationType === 'Event' ? LAMBDA_ASYNC_PAYLOAD_BYTES : LAMBDA_SYNC_PAYLOAD_BYTES;
  const size = bytes(JSON.stringify(payload ?? null));
  if (size > limit)
    throw serviceError(
      'RequestEntityTooLargeException',
      `${size} byte payload is too large for the ${invocationType} invocation type (limit ${limit} bytes)`,
      413,
    );
}

/** Parameter Store: a value longer than the tier allows, or outside the parameter's AllowedPattern. */
export function checkParameterValue(
  value: string,
  o: { tier?: keyof typeof SSM_PARAMETER_VALUE_CHARS; allowedPattern?: string } = {},
): void {
  const limit = SSM_PARAMETER_VALUE_CHARS[o.tier ?? 'Standard'];
  if (value.length > limit)
    throw serviceError(
      'ValidationException',
      `1 validation error detected: Value at 'value' failed to satisfy constraint: Member must have length less than or equal to ${limit}`,
    );
  if (o.allowedPattern && !new RegExp(o.allowedPattern).test(value))
    throw serviceError(
      'ParameterPatternMismatchException',
      `Parameter value, cannot be validated against allowedPattern: ${o.allowedPattern}`,
    );
}

/** CloudWatch Logs PutSubscriptionFilter: `filterPattern` is at most 1,024 characters. */
export const FILTER_PATTERN_MAX_CHARS = 1024;

/** CloudFormation would fail the stack on a subscription filter CloudWatch Logs refuses. */
export function checkFilterPattern(pattern: string): void {
  if (pattern.length > FILTER_PATTERN_MAX_CHARS)
    throw serviceError(
      'InvalidParameterException',
      `1 validation error detected: Value at 'filterPattern' failed to satisfy constraint: Member must have length less than or equal to ${FILTER_PATTERN_MAX_CHARS}`,
    );
}
