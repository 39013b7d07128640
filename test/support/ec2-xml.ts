import { MEMBER_NAME, memberName } from '../../lambdas/aws/ec2/wire.js';

/**
 * EC2 Query XML responses from SDK-shaped objects (the recorded account), the way EC2 writes them:
 * lowerCamel element names, lists as `<item>` elements. The wire name of a member is found through
 * the decoder's own table; the test then parses the XML with @aws-sdk/client-ec2 too, so a wrong
 * table entry makes the SDK's parse differ from the recorded object.
 */
export function ec2ResponseXml(
  action: string,
  output: object,
  requestId = '59dbff89-35bd-4eac-99ed-be587EXAMPLE',
): string {
  return `<?xml version="1.0" encoding="UTF-8"?>
<${action}Response xmlns="http://ec2.amazonaws.com/doc/2016-11-15/"><requestId>${requestId}</requestId>${members(output, '')}</${action}Response>`;
}

/** EC2's error body for one error code. */
export function ec2ErrorXml(code: string, message: string, requestId = 'ab2b7d9b-0a4f-4c4e-9c57-EXAMPLE'): string {
  return `<?xml version="1.0" encoding="UTF-8"?>
<Response><Errors><Error><Code>${code}</Code><Message>${xmlText(message)}</Message></Error></Errors><RequestID>${requestId}</RequestID></Response>`;
}

const xmlText = (s: string) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');

/** The wire name that decodes to `member` inside `parent`. */
function wireName(member: string, parent: string): string {
  const keys = Object.keys(MEMBER_NAME);
  const candidates = [
    ...keys.filter((k) => k.startsWith(`${parent}/`)).map((k) => k.slice(parent.length + 1)),
    ...keys.filter((k) => !k.includes('/')),
    `${member[0].toLowerCase()}${member.slice(1)}`,
  ];
  const wire = candidates.find((w) => memberName(w, parent) === member);
  if (!wire) throw new Error(`no wire name for ${member} in ${parent || 'the response'}`);
  return wire;
}

function value(v: unknown, wire: string): string {
  if (Array.isArray(v)) return v.map((i) => `<item>${value(i, wire)}</item>`).join('');
  if (v instanceof Date) return v.toISOString();
  if (typeof v === 'object' && v !== null) return members(v, wire);
  return xmlText(String(v));
}

function members(o: object, parent: string): string {
  return Object.entries(o)
    .filter(([, v]) => v !== undefined)
    .map(([k, v]) => {
      const w = wireName(k, parent);
      return `<${w}>${value(v, w)}</${w}>`;
    })
    .join('');
}
