/**
 * The log keys an auditor trusts (current and retired), and verification of the server's signed tree
 * heads against them. The server's own key list is never consulted here: a server could publish any
 * key, so trust comes only from the auditor's configuration.
 */
import { type JsonSth, verifySth } from '../domain/log';
import { type Checkpoint, loadVerifierKey, type VerifierKey, verifyCheckpoint } from '../merkle-core';

export type TrustVerdict =
  | { readonly ok: true; readonly checkpoint: Checkpoint; readonly key: VerifierKey }
  | { readonly ok: false; readonly reason: string };

export class TrustedLogKeys {
  readonly keys: readonly VerifierKey[];

  /** Loads note-format verifier keys; throws naming the key that does not load. */
  constructor(verifierKeys: readonly string[]) {
    if (verifierKeys.length === 0) {
      throw new Error('no trusted log verifier key: the live check needs one to verify the server');
    }
    this.keys = verifierKeys.map((text, i) => {
      try {
        return loadVerifierKey(text.trim());
      } catch (error) {
        throw new Error(
          `trusted log key #${i + 1} (${text.trim()}) is not a valid verifier key: ${(error as Error).message}`,
        );
      }
    });
  }

  /** Whether `verifierKey` (note format) is one of the trusted keys. */
  includes(verifierKey: string): boolean {
    return this.keys.some((key) => key.text === verifierKey.trim());
  }

  /** Verifies a C2SP checkpoint note: it must carry a valid signature by one of the trusted keys. */
  async verifyNote(note: string): Promise<TrustVerdict> {
    const reasons: string[] = [];
    for (const key of this.keys) {
      const verdict = await verifyCheckpoint(note, key);
      if (verdict.ok) return { ok: true, checkpoint: verdict.checkpoint, key };
      reasons.push(verdict.reason);
    }
    return { ok: false, reason: `no trusted log key verifies it (${[...new Set(reasons)].join('; ')})` };
  }

  /** Verifies a JSON STH: its log_id must be a trusted key, and the note it spells must verify. */
  async verifySth(sth: JsonSth): Promise<TrustVerdict> {
    const key = this.keys.find((k) => k.text === sth.log_id.trim());
    if (!key) return { ok: false, reason: `it names log key ${sth.log_id}, which is not a trusted key` };
    const verdict = await verifySth(sth, key);
    return verdict.ok ? { ok: true, checkpoint: verdict.checkpoint, key } : verdict;
  }
}
