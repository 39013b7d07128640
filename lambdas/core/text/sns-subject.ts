/**
 * SNS refuses a `Subject` that is 100 characters or longer, contains a line break or control
 * character, or is not ASCII (Publish: "must be less than 100 characters long"). 99 is the most.
 */
export const MAX_SUBJECT = 99;

/** `raw` made into a subject SNS accepts: printable ASCII only, cut to {@link MAX_SUBJECT} with "...". */
export function snsSubject(raw: string): string {
  // biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what we strip
  const ascii = raw.replace(/[\u0000-\u001f\u007f]/g, ' ').replace(/[^\x20-\x7e]/g, '?');
  return ascii.length <= MAX_SUBJECT ? ascii : `${ascii.slice(0, MAX_SUBJECT - 3)}...`;
}
