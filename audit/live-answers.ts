/**
 * Reading the JSON answers of the public log API (`/sth`, `/proof`, `/consistency`, `/keys`, `/anchor`) into
 * typed values, checking every member the live audit relies on. A server is not trusted to be well
 * formed: a malformed answer is an AnswerFormatError whose message says what is wrong.
 */
import type { JsonSth } from '../domain/log';
import { fromHex, parseNote } from '../merkle-core';

export class AnswerFormatError extends Error {
  override readonly name = 'AnswerFormatError';
}

export interface ProofAnswer {
  readonly leaf_index: number;
  readonly leaf_hash: string;
  readonly tree_size: number;
  readonly root_hash: string;
  readonly audit_path: readonly Uint8Array[];
}

export interface ConsistencyAnswer {
  readonly from: number;
  readonly to: number;
  readonly proof: readonly Uint8Array[];
}

const HASH_HEX = /^[0-9a-f]{64}$/;

/** Parses a UTF-8 JSON body. */
export function parseJsonBody(body: Uint8Array): unknown {
  const text = Buffer.from(body.buffer, body.byteOffset, body.byteLength).toString('utf8');
  try {
    return JSON.parse(text);
  } catch {
    throw new AnswerFormatError(`the answer is not JSON (starts with ${JSON.stringify(text.slice(0, 40))})`);
  }
}

/** A JSON signed tree head, as `GET /sth` answers. */
export function parseSthAnswer(value: unknown): JsonSth {
  const o = object(value, 'the STH');
  const witnesses = o.witness_signatures;
  if (!Array.isArray(witnesses)) throw new AnswerFormatError('the STH has no witness_signatures array');
  return {
    log_id: string(o, 'log_id'),
    tree_size: size(o, 'tree_size'),
    root_hash: hashHex(o, 'root_hash'),
    timestamp: string(o, 'timestamp'),
    log_signature: string(o, 'log_signature'),
    witness_signatures: witnesses.map((w, i) => {
      const entry = object(w, `witness_signatures[${i}]`);
      return { name: string(entry, 'name'), signature: string(entry, 'signature') };
    }),
  };
}

/** An inclusion proof, as `GET /proof` answers. */
export function parseProofAnswer(value: unknown): ProofAnswer {
  const o = object(value, 'the proof answer');
  return {
    leaf_index: size(o, 'leaf_index'),
    leaf_hash: hashHex(o, 'leaf_hash'),
    tree_size: size(o, 'tree_size'),
    root_hash: hashHex(o, 'root_hash'),
    audit_path: hashList(o, 'audit_path'),
  };
}

/** A consistency proof, as `GET /consistency` answers. */
export function parseConsistencyAnswer(value: unknown): ConsistencyAnswer {
  const o = object(value, 'the consistency answer');
  return { from: size(o, 'from'), to: size(o, 'to'), proof: hashList(o, 'proof') };
}

/** The anchored checkpoint's members of a GOV_LOG_ANCHOR_V1 record, and the record itself (to hash). */
interface AnchorRecordAnswer {
  readonly log: string;
  readonly tree_size: number;
  readonly root_hash: string;
  readonly checkpoint: string;
  /** The record as served: its leaf hash is recomputed from it. */
  readonly record: Record<string, unknown>;
}

/** `GET /gov/v1/logs/:log/anchor?tree_size=N`: an anchor leaf of the shared log and its proof. */
export interface AnchorAnswer {
  readonly log: string;
  readonly tree_size: number;
  readonly anchor: {
    readonly leaf_index: number;
    readonly leaf_hash: string;
    readonly record: AnchorRecordAnswer;
  };
  readonly shared: { readonly sth: JsonSth; readonly inclusion_proof: ProofAnswer };
}

export function parseAnchorAnswer(value: unknown): AnchorAnswer {
  const o = object(value, 'the anchor answer');
  const anchor = object(o.anchor, 'anchor');
  const record = object(anchor.record, 'anchor.record');
  const shared = object(o.shared, 'shared');
  return {
    log: string(o, 'log'),
    tree_size: size(o, 'tree_size'),
    anchor: {
      leaf_index: size(anchor, 'leaf_index'),
      leaf_hash: hashHex(anchor, 'leaf_hash'),
      record: {
        log: string(record, 'log'),
        tree_size: size(record, 'tree_size'),
        root_hash: hashHex(record, 'root_hash'),
        checkpoint: string(record, 'checkpoint'),
        record,
      },
    },
    shared: { sth: parseSthAnswer(shared.sth), inclusion_proof: parseProofAnswer(shared.inclusion_proof) },
  };
}

/** The log verifier key from `GET /keys` (other members are not needed), or null when absent. */
export function parseKeysAnswer(value: unknown): { log: string | null } {
  const o = object(value, 'the keys answer');
  return { log: typeof o.log === 'string' ? o.log.trim() : null };
}

/** The signed text of a note (the checkpoint body), or null when it is not a note. */
export function signedText(note: string): string | null {
  try {
    return parseNote(note).text;
  } catch {
    return null;
  }
}

function object(value: unknown, what: string): Record<string, unknown> {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw new AnswerFormatError(`${what} is not a JSON object`);
  }
  return value as Record<string, unknown>;
}

function string(o: Record<string, unknown>, name: string): string {
  const value = o[name];
  if (typeof value !== 'string') throw new AnswerFormatError(`${name} is missing or not a string`);
  return value;
}

function size(o: Record<string, unknown>, name: string): number {
  const value = o[name];
  if (typeof value !== 'number' || !Number.isSafeInteger(value) || value < 0) {
    throw new AnswerFormatError(`${name} is missing or not a non-negative integer`);
  }
  return value;
}

function hashHex(o: Record<string, unknown>, name: string): string {
  const value = o[name];
  if (typeof value !== 'string' || !HASH_HEX.test(value)) {
    throw new AnswerFormatError(`${name} is missing or not 64 lowercase hex digits`);
  }
  return value;
}

function hashList(o: Record<string, unknown>, name: string): Uint8Array[] {
  const value = o[name];
  if (!Array.isArray(value)) throw new AnswerFormatError(`${name} is missing or not an array`);
  return value.map((h, i) => {
    if (typeof h !== 'string' || !HASH_HEX.test(h)) {
      throw new AnswerFormatError(`${name}[${i}] is not 64 lowercase hex digits`);
    }
    return fromHex(h);
  });
}
