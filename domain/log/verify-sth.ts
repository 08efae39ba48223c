/** JSON STH verification for Node, with node:crypto. */
import { type CheckpointVerdict, nodeCryptoSuite, type VerifierKey } from '../../merkle-core';
import { type JsonSth, verifySthWith } from './sth';

/** Verifies a JSON STH: log_id must be the trusted key, and the note it spells must verify. */
export function verifySth(sth: JsonSth, logKey: VerifierKey): Promise<CheckpointVerdict> {
  return verifySthWith(sth, logKey, nodeCryptoSuite);
}
