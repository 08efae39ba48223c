/**
 * Accepting a witness's cosignature of a signed tree head (C2SP tlog-cosignature, cosignature/v1):
 * it must be by a witness key the operator trusts and verify over the checkpoint the log signed at that
 * size. Each accepted one becomes a `WitnessCosigned` event in the witness key's own stream, with an
 * event id derived from (witness key, tree size): the event store treats a repeated append of that id
 * as a retry, so a witness key keeps its first cosignature per size however often it is sent.
 */
import { createHash } from 'node:crypto';
import { SHARED_LOG_NAME } from '../../../domain/log';
import type { FieldProblem, GovernanceEvent } from '../../../event-schemas';
import {
  bytesEqual,
  type Checkpoint,
  NoteFormatError,
  type NoteSignature,
  parseNote,
  toHex,
  type VerifierKey,
  verifyCosignature,
} from '../../../merkle-core';
import { SYSTEM_TENANT } from '../../../projectors/log/log-sequencer';
import type { Aggregate, Decision } from '../../engine/aggregate-writer';

export const COSIGNATURE_POINTER = '/cosignature';

export type CosignatureCheck =
  | {
      readonly ok: true;
      readonly witnessKey: VerifierKey;
      readonly checkpoint: Checkpoint;
      readonly timestamp: number;
      /** The signature line, ending in a newline. */
      readonly line: string;
    }
  | { readonly ok: false; readonly problem: FieldProblem };

/** The signature line with its final newline (the body may omit it). */
function asSignatureLine(text: string): string {
  return text.endsWith('\n') ? text : `${text}\n`;
}

/** The note as the log signed it: its text and its first signature line, without witness lines. */
function logSignedNote(note: string): string {
  const { text, signatures } = parseNote(note);
  const logLine = signatures[0];
  if (!logLine) throw new NoteFormatError('the checkpoint note has no signature');
  return `${text}\n${logLine.line}`;
}

/** The trusted key named by a signature line (same name and key ID), if any. */
function trustedKeyOf(
  signature: Pick<NoteSignature, 'name' | 'keyId'>,
  trusted: readonly VerifierKey[],
): VerifierKey | undefined {
  return trusted.find((key) => key.name === signature.name && bytesEqual(key.keyId, signature.keyId));
}

function problem(reason: string): { ok: false; problem: FieldProblem } {
  return { ok: false, problem: { pointer: COSIGNATURE_POINTER, reason } };
}

/** Parses a signature line on its own (it is checked against a note later). */
function parseSignatureLine(line: string): NoteSignature | string {
  try {
    // Any valid note text will do: only the signature block is read.
    return parseNote(`-\n\n${asSignatureLine(line)}`).signatures[0]!;
  } catch (error) {
    if (error instanceof NoteFormatError) return `is not a note signature line: ${error.message}`;
    throw error;
  }
}

/** Whose cosignature `line` claims to be, if the key is trusted; a problem otherwise (cheap, no crypto). */
export function identifyWitness(
  line: string,
  trusted: readonly VerifierKey[],
): { ok: true; witnessKey: VerifierKey } | { ok: false; problem: FieldProblem } {
  const signature = parseSignatureLine(line);
  if (typeof signature === 'string') return problem(signature);
  const witnessKey = trustedKeyOf(signature, trusted);
  if (!witnessKey) {
    return problem(
      `is signed by the witness key ${signature.name}+${toHex(signature.keyId)}, which this log does not trust; its operator lists the verifier keys of the witnesses it trusts in GOV_WITNESS_KEYS`,
    );
  }
  return { ok: true, witnessKey };
}

/**
 * Checks that `line` is a valid cosignature by a trusted witness of the checkpoint the log signed at
 * `treeSize`, given as served (`note`: the witness lines it may already carry are ignored).
 */
export async function checkCosignature(
  line: string,
  treeSize: number,
  note: string,
  trusted: readonly VerifierKey[],
  /** The log's base path, for the message (`/gov/v1/log`, `/gov/v1/logs/<name>`). */
  logPath = '/gov/v1/log',
): Promise<CosignatureCheck> {
  const identified = identifyWitness(line, trusted);
  if (!identified.ok) return identified;
  const signatureLine = asSignatureLine(line);
  const verdict = await verifyCosignature(`${logSignedNote(note)}${signatureLine}`, identified.witnessKey);
  if (!verdict.ok) {
    return problem(
      `does not verify over the checkpoint the log signed at tree size ${treeSize} (${verdict.reason}); cosign the note served at GET ${logPath}/checkpoint and send its size`,
    );
  }
  return {
    ok: true,
    witnessKey: identified.witnessKey,
    checkpoint: verdict.checkpoint,
    timestamp: verdict.timestamp,
    line: signatureLine,
  };
}

/** The cosignature by `witnessKey` a served checkpoint note carries, with its signed time. */
export function cosignatureIn(
  note: string,
  witnessKey: VerifierKey,
): { line: string; timestamp: number } | undefined {
  const signature = parseNote(note)
    .signatures.slice(1)
    .find((s) => trustedKeyOf(s, [witnessKey]) !== undefined);
  if (!signature || signature.signature.length < 8) return undefined;
  const { buffer, byteOffset } = signature.signature;
  const timestamp = Number(new DataView(buffer, byteOffset, 8).getBigUint64(0));
  return { line: signature.line, timestamp };
}

/** The stream of one witness key's cosignatures: `witness-<name>+<key id>`. */
export function witnessStream(witnessKey: VerifierKey): string {
  return `witness-${witnessKey.name}+${toHex(witnessKey.keyId)}`;
}

/**
 * A UUID determined by (log, witness key, tree size), so the store keeps one cosignature per triple.
 * The shared log's ids are what they were before there were many logs (no log in the hashed text).
 */
export function cosignatureEventId(witnessKey: VerifierKey, treeSize: number, log = SHARED_LOG_NAME): string {
  const of = log === SHARED_LOG_NAME ? '' : `${log}\n`;
  const digest = createHash('sha256')
    .update(`WitnessCosigned\n${of}${witnessKey.text}\n${treeSize}`)
    .digest();
  // RFC 9562 layout: version 8 (custom), variant 10.
  digest[6] = (digest[6]! & 0x0f) | 0x80;
  digest[8] = (digest[8]! & 0x3f) | 0x80;
  const hex = digest.subarray(0, 16).toString('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}

export type WitnessEvent = Extract<GovernanceEvent, { type: 'WitnessCosigned' }>;

/**
 * A witness key's stream decides nothing from its past (the writer runs it with `consistency: 'any'`):
 * a repeated cosignature is the same event id, which the store keeps once.
 */
export const witnessAggregate: Aggregate<null, WitnessEvent> = {
  initial: () => null,
  evolve: (state) => state,
};

/** Records an accepted cosignature of a head of `log` (the event names a log other than the shared one). */
export function decideRecordCosignature(
  _state: null,
  accepted: Extract<CosignatureCheck, { ok: true }>,
  correlationId: string,
  log = SHARED_LOG_NAME,
): Decision<{ kind: 'recorded' }, WitnessEvent> {
  const { checkpoint, witnessKey } = accepted;
  const event = {
    id: cosignatureEventId(witnessKey, checkpoint.size, log),
    type: 'WitnessCosigned' as const,
    data: {
      origin: checkpoint.origin,
      tree_size: checkpoint.size,
      root_hash: toHex(checkpoint.rootHash),
      witness_key: witnessKey.text,
      timestamp: accepted.timestamp,
      cosignature: accepted.line,
      ...(log === SHARED_LOG_NAME ? {} : { log }),
    },
    tenant_id: SYSTEM_TENANT,
    correlation_id: correlationId,
    causation_id: null,
  };
  return { events: [event], result: { kind: 'recorded' } };
}
