/**
 * What an auditor trusts: the log's checkpoint keys, the authority (node) keys and the validator keys,
 * current and retired. Everything else is recomputed from the event stream.
 */
import { createPublicKey, type KeyObject } from 'node:crypto';
import { authorityNodeIdOf } from '../domain/governance/envelope';
import { validatorIdOf } from '../domain/governance/validators';
import { loadVerifierKey, SIGNATURE_TYPE_ED25519, type VerifierKey } from '../merkle-core';
import type { PublishedKeys } from '../runtime/keys/key-history';

export interface AuditTrust {
  /** C2SP note verifier keys of the log (current and retired); a checkpoint must verify under one. */
  logVerifierKeys: readonly string[];
  /** Authority (node) Ed25519 public keys whose envelope signatures count (current and retired). */
  authorityPublicKeys: readonly KeyObject[];
  /** Validator Ed25519 public keys whose votes count (current and retired). */
  validatorPublicKeys: readonly KeyObject[];
}

/** The trust in the form the checks use: keys parsed once and indexed by the ids records carry. */
export interface PreparedTrust {
  logKeys: readonly VerifierKey[];
  /** The verifier key texts, for the envelopes' log binding. */
  logKeyTexts: ReadonlySet<string>;
  /** By authority node id (`node_` + 24 hex digits of the key's SPKI hash). */
  authorities: ReadonlyMap<string, KeyObject>;
  /** By validator id (hex SHA-256 of the key's SPKI). */
  validators: ReadonlyMap<string, KeyObject>;
}

/** The trust as it crosses to a worker thread: plain strings only. */
export interface TrustWire {
  logVerifierKeys: string[];
  /** base64 DER SubjectPublicKeyInfo */
  authorityPublicKeys: string[];
  validatorPublicKeys: string[];
}

export class TrustError extends Error {
  override readonly name = 'TrustError';
}

/** Parses and indexes the trust; throws TrustError naming the key that is not usable. */
export function prepareTrust(trust: AuditTrust): PreparedTrust {
  const logKeys = trust.logVerifierKeys.map((text) => {
    let key: VerifierKey;
    try {
      key = loadVerifierKey(text.trim());
    } catch (error) {
      throw new TrustError(`log verifier key '${text.trim()}' is not usable: ${(error as Error).message}`);
    }
    if (key.type !== SIGNATURE_TYPE_ED25519)
      throw new TrustError(`log verifier key '${key.text}' is not an Ed25519 note key (type 0x01)`);
    return key;
  });
  return {
    logKeys,
    logKeyTexts: new Set(logKeys.map((k) => k.text)),
    authorities: indexKeys(trust.authorityPublicKeys, authorityNodeIdOf, 'authority'),
    validators: indexKeys(trust.validatorPublicKeys, validatorIdOf, 'validator'),
  };
}

function indexKeys(
  keys: readonly KeyObject[],
  idOf: (key: KeyObject) => string,
  role: string,
): Map<string, KeyObject> {
  const byId = new Map<string, KeyObject>();
  for (const key of keys) {
    if (key.type !== 'public' || key.asymmetricKeyType !== 'ed25519')
      throw new TrustError(`every ${role} key must be an Ed25519 public key`);
    byId.set(idOf(key), key);
  }
  return byId;
}

export function trustToWire(trust: AuditTrust): TrustWire {
  const der = (key: KeyObject) => key.export({ type: 'spki', format: 'der' }).toString('base64');
  return {
    logVerifierKeys: [...trust.logVerifierKeys],
    authorityPublicKeys: trust.authorityPublicKeys.map(der),
    validatorPublicKeys: trust.validatorPublicKeys.map(der),
  };
}

export function trustFromWire(wire: TrustWire): AuditTrust {
  return {
    logVerifierKeys: wire.logVerifierKeys,
    authorityPublicKeys: wire.authorityPublicKeys.map(publicKeyFromSpki),
    validatorPublicKeys: wire.validatorPublicKeys.map(publicKeyFromSpki),
  };
}

/** The trust of a node's published keys (`gov keys show --json`, or `readPublishedKeys(<data>/keys)`). */
export function trustFromPublishedKeys(keys: PublishedKeys): AuditTrust {
  return {
    logVerifierKeys: keys.log.map((k) => k.verifier_key),
    authorityPublicKeys: keys.authority.map((k) => publicKeyFromSpki(k.public_key)),
    validatorPublicKeys: keys.validators.map((k) => publicKeyFromSpki(k.public_key)),
  };
}

/**
 * Checks that a parsed JSON document has the shape of `gov keys show --json`; throws TrustError saying
 * what is wrong.
 */
export function parsePublishedKeys(json: unknown): PublishedKeys {
  const doc = json as Partial<Record<keyof PublishedKeys, unknown>>;
  if (doc === null || typeof doc !== 'object' || Array.isArray(doc))
    throw new TrustError('the trust file must hold the JSON object printed by `gov keys show --json`');
  const list = (member: keyof PublishedKeys, field: string) => {
    const value = doc[member];
    if (!Array.isArray(value)) throw new TrustError(`the trust file has no '${member}' array`);
    value.forEach((entry, i) => {
      if (typeof (entry as Record<string, unknown>)?.[field] !== 'string')
        throw new TrustError(`the trust file's ${member}[${i}] has no '${field}' string`);
    });
  };
  list('log', 'verifier_key');
  list('authority', 'public_key');
  list('validators', 'public_key');
  return doc as PublishedKeys;
}

function publicKeyFromSpki(base64: string): KeyObject {
  try {
    return createPublicKey({ key: Buffer.from(base64, 'base64'), format: 'der', type: 'spki' });
  } catch (error) {
    throw new TrustError(
      `public key '${base64}' is not a DER SubjectPublicKeyInfo: ${(error as Error).message}`,
    );
  }
}
