/**
 * Browser verifier of this service's log: merkle-core's browser entry plus the JSON STH, all on
 * WebCrypto (no Node APIs). Bundle this file for a page that checks what the log serves.
 */
import type { CheckpointVerdict, VerifierKey } from '../../merkle-core/browser';
import { webCryptoSuite } from '../../merkle-core/note/web-crypto-suite';
import { type JsonSth, verifySthWith } from './sth';

export * from '../../merkle-core/browser';
export { checkpointNoteFromSth, type JsonSth, sthFromCheckpointNote } from './sth';

/** Verifies a JSON STH: log_id must be the trusted key, and the note it spells must verify. */
export function verifySth(sth: JsonSth, logKey: VerifierKey): Promise<CheckpointVerdict> {
  return verifySthWith(sth, logKey, webCryptoSuite);
}
