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

/**
 * The signature a chat approval button carries: it binds the approval to its incident and deadline,
 * so a message for another incident, another approval or a later deadline does not verify.
 */
export function chatSignature(secret: string, id: string, exp: number, incidentId: string): string {
  return mac(secret, 'chat', id, exp, incidentId);
}

/** What a chat card's buttons send after `approve/` or `reject/`: `<incident>/<approval id>/<deadline ms>/<signature>`. */
export function chatApprovalToken(secret: string, id: string, exp: number, incidentId: string): string {
  return `${incidentId}/${id}/${exp}/${chatSignature(secret, id, exp, incidentId)}`;
}
