import { createHmac } from 'node:crypto';

// Its own module: the approval request signs links without loading the endpoint's Step Functions client.

/** HMAC-SHA256 of the parts, base64url (the link signature and the form token). */
export function mac(secret: string, ...parts: readonly (string | number)[]): string {
  return createHmac('sha256', secret).update(parts.join('.')).digest('base64url');
}

/** The signature of a review link: it may show the page, never decide. */
export function reviewSignature(secret: string, id: string, exp: number): string {
  return mac(secret, 'view', id, exp);
}
