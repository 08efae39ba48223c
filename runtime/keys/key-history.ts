/**
 * The public keys of a node, current and retired, as a verifier needs them: `gov keys show --json`, the
 * auditor, the server's sequencer (old tree heads) and `GET /gov/v1/log/keys` all read them from here.
 *
 * Current keys are the key files of `<data>/keys`. Retired keys are in `<data>/keys/history.json`, which
 * keeps only their PUBLIC part, in the order they were retired:
 *
 *   { "format": "gov-key-history/1",
 *     "retired": [ { "kind": "log", "verifier_key": "<origin>+<key id>+<base64>", "key_id": "<8 hex>",
 *                    "created_at": "…", "retired_at": "…" },
 *                  { "kind": "authority", "node_id": "node_…", "public_key": "<base64 SPKI DER>", … },
 *                  { "kind": "validator", "slot": 2, "validator_id": "<64 hex>", "public_key": "…", … } ] }
 *
 * A rotation records the retired key here before it replaces the key file. If it is interrupted between
 * the two, the history names a key that is still current: such an entry is not a retirement and is
 * ignored (the next rotation replaces it).
 */
import { createPublicKey } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { authorityNodeIdOf } from '../../domain/governance/envelope';
import { validatorIdOf } from '../../domain/governance/validators';
import { loadVerifierKey, toHex } from '../../merkle-core';
import { writeFileAtomic } from '../support/atomic-file';
import {
  type CurrentKey,
  type PublicKeyInfo,
  readCurrentKey,
  SIGNING_SLOTS,
  VALIDATOR_COUNT,
} from './key-files';

/** Exactly the JSON printed by `gov keys show --json`. Current keys first, then retired ones, newest first. */
export interface PublishedKeys {
  log: { verifier_key: string; status: 'current' | 'retired'; retired_at?: string }[];
  authority: {
    node_id: string;
    /** base64 DER SubjectPublicKeyInfo */
    public_key: string;
    status: 'current' | 'retired';
    retired_at?: string;
  }[];
  validators: {
    validator_id: string;
    /** base64 DER SubjectPublicKeyInfo */
    public_key: string;
    status: 'current' | 'retired';
    retired_at?: string;
  }[];
}

export const HISTORY_FILE = 'history.json';
const HISTORY_FORMAT = 'gov-key-history/1';

/** A key that signed once and must not sign again; only its public part is kept. */
export type RetiredKey = PublicKeyInfo & {
  /** When its key file was written. */
  created_at: string;
  retired_at: string;
};

export class KeyHistoryError extends Error {
  override readonly name = 'KeyHistoryError';
}

/** Whether two public parts are the same key. */
export function sameKey(a: PublicKeyInfo, b: PublicKeyInfo): boolean {
  if (a.kind !== b.kind) return false;
  return a.kind === 'log'
    ? a.verifier_key === (b as typeof a).verifier_key
    : a.public_key === (b as typeof a).public_key;
}

const ISO_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?Z$/;

/** Checks one history entry, its ids included (they must derive from its key); returns the problem. */
function entryProblem(entry: Record<string, unknown>): string | null {
  for (const field of ['created_at', 'retired_at'] as const) {
    if (typeof entry[field] !== 'string' || !ISO_TIME.test(entry[field]))
      return `${field} must be an ISO 8601 UTC time`;
  }
  try {
    switch (entry.kind) {
      case 'log': {
        if (typeof entry.verifier_key !== 'string') return 'verifier_key must be a string';
        const key = loadVerifierKey(entry.verifier_key);
        return toHex(key.keyId) === entry.key_id ? null : 'key_id is not the key ID of verifier_key';
      }
      case 'authority':
      case 'validator': {
        if (typeof entry.public_key !== 'string') return 'public_key must be base64 SPKI DER';
        const der = Buffer.from(entry.public_key, 'base64');
        const publicKey = createPublicKey({ key: der, format: 'der', type: 'spki' });
        if (publicKey.asymmetricKeyType !== 'ed25519') return 'public_key must be an Ed25519 key';
        if (entry.kind === 'authority')
          return entry.node_id === authorityNodeIdOf(publicKey) ? null : 'node_id does not match public_key';
        if (
          !Number.isInteger(entry.slot) ||
          (entry.slot as number) < 1 ||
          (entry.slot as number) > VALIDATOR_COUNT
        )
          return `slot must be a validator number from 1 to ${VALIDATOR_COUNT}`;
        return entry.validator_id === validatorIdOf(publicKey)
          ? null
          : 'validator_id does not match public_key';
      }
      default:
        return 'kind must be log, authority or validator';
    }
  } catch (error) {
    return (error as Error).message;
  }
}

/** Parses and checks a history file's text; `file` names it in errors. */
function parseHistory(text: string, file: string): RetiredKey[] {
  let doc: { format?: unknown; retired?: unknown };
  try {
    doc = JSON.parse(text);
  } catch (error) {
    throw new KeyHistoryError(
      `${file} is not valid JSON (${(error as Error).message}); restore it from backup`,
    );
  }
  if (doc?.format !== HISTORY_FORMAT || !Array.isArray(doc.retired))
    throw new KeyHistoryError(
      `${file} is not a key history ("format": "${HISTORY_FORMAT}", "retired": [...])`,
    );
  doc.retired.forEach((entry, index) => {
    const problem =
      entry && typeof entry === 'object' ? entryProblem(entry as Record<string, unknown>) : 'not an object';
    if (problem) throw new KeyHistoryError(`${file}: retired[${index}]: ${problem}; restore it from backup`);
  });
  return doc.retired as RetiredKey[];
}

/** The retired keys in the order they were retired ([] when nothing was ever rotated). */
export function readHistory(keysDir: string): RetiredKey[] {
  const file = path.join(keysDir, HISTORY_FILE);
  let text: string;
  try {
    text = fs.readFileSync(file, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return [];
    throw error;
  }
  return parseHistory(text, file);
}

/** Replaces the history atomically (callers hold the keys folder's lock). Public data: mode 0644. */
export function writeHistory(keysDir: string, retired: readonly RetiredKey[]): void {
  const doc = { format: HISTORY_FORMAT, retired };
  writeFileAtomic(path.join(keysDir, HISTORY_FILE), `${JSON.stringify(doc, null, 2)}\n`, 0o644);
}

export interface KeyListing {
  /** The key files present, in slot order (log, authority, validator-1…). */
  current: CurrentKey[];
  /** Retired keys, newest retirement first, without entries of an interrupted rotation. */
  retired: RetiredKey[];
}

/** Every key of `keysDir`, current and retired. */
export function listKeys(keysDir: string): KeyListing {
  if (!fs.existsSync(keysDir))
    throw new KeyHistoryError(
      `${keysDir} does not exist: no keys yet (run gov keys generate, or start the server)`,
    );
  const current = SIGNING_SLOTS.map((slot) => readCurrentKey(keysDir, slot)).filter(
    (key): key is CurrentKey => key !== null,
  );
  const retired = readHistory(keysDir)
    .filter((entry) => !current.some((key) => sameKey(key.info, entry)))
    .map((entry, index) => ({ entry, index }))
    .sort((a, b) => b.entry.retired_at.localeCompare(a.entry.retired_at) || a.index - b.index)
    .map(({ entry }) => entry);
  return { current, retired };
}

type Status = { status: 'current' } | { status: 'retired'; retired_at: string };

/** The published form of a listing (pure). */
export function publishedKeysOf(listing: KeyListing): PublishedKeys {
  const published: PublishedKeys = { log: [], authority: [], validators: [] };
  const add = (info: PublicKeyInfo, status: Status) => {
    if (info.kind === 'log') published.log.push({ verifier_key: info.verifier_key, ...status });
    else if (info.kind === 'authority')
      published.authority.push({ node_id: info.node_id, public_key: info.public_key, ...status });
    else
      published.validators.push({ validator_id: info.validator_id, public_key: info.public_key, ...status });
  };
  for (const key of listing.current) add(key.info, { status: 'current' });
  for (const key of listing.retired) add(key, { status: 'retired', retired_at: key.retired_at });
  return published;
}

/** The keys of `<data>/keys` a verifier trusts: the current key files plus the retired keys. */
export function readPublishedKeys(keysDir: string): PublishedKeys {
  return publishedKeysOf(listKeys(keysDir));
}

/** The verifier keys of retired log keys, newest first. */
export function retiredLogVerifierKeys(published: PublishedKeys): string[] {
  return published.log.filter((key) => key.status === 'retired').map((key) => key.verifier_key);
}

/** The retired keys as `GET /gov/v1/log/keys` serves them (`retired`), beside the current ones. */
export function retiredKeysAnswer(published: PublishedKeys) {
  const retired = <T extends { status: string }>(keys: readonly T[]) =>
    keys.filter((k) => k.status === 'retired');
  return {
    log: retired(published.log).map((k) => ({ verifier_key: k.verifier_key, retired_at: k.retired_at })),
    authority: retired(published.authority).map((k) => ({
      node_id: k.node_id,
      algorithm: 'Ed25519',
      public_key_spki: k.public_key,
      retired_at: k.retired_at,
    })),
    validators: retired(published.validators).map((k) => ({
      validator_id: k.validator_id,
      algorithm: 'Ed25519',
      public_key_spki: k.public_key,
      retired_at: k.retired_at,
    })),
  };
}
