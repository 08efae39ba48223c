/**
 * Who may manage a tenant's account. After `POST /api-key/rotate` the previous key keeps working for
 * 24 hours so that clients can switch over, but only to read and submit: managing the account (rotating
 * keys, webhooks, the tenant policy) is for the tenant's current key, or a leaked old key could mint a
 * new permanent key and push the owner's key into expiry. Checked at the HTTP edge from the read model
 * (`requireCurrentKey`) and again here, at decision time, against the tenant's stream: a rotation
 * decided between the two reads is seen.
 */
import type { TenantState } from './tenant-state';

/** What a command made with a key other than the tenant's current one is answered. */
export interface RetiredKeyRefusal {
  kind: 'refused';
  status: 403;
  error: 'FORBIDDEN';
  message: string;
}

export const RETIRED_KEY_MESSAGE =
  'this API key was replaced by a key rotation: until it expires it may still read and submit evidence, but only the current key manages the account (key rotation, webhooks, tenant policy); use the current key';

/** A refusal when `keyId` is not the tenant's current key; null when it is. */
export function refuseRetiredKey(state: TenantState, keyId: string): RetiredKeyRefusal | null {
  if (keyId === state.active_key_id) return null;
  return { kind: 'refused', status: 403, error: 'FORBIDDEN', message: RETIRED_KEY_MESSAGE };
}
