/**
 * The witness's own signing key: a C2SP signed-note key of type cosignature/v1 (0x04), kept in one
 * file (`PRIVATE+KEY+<name>+<key id>+<base64>`, mode 0600). Its verifier key is what the log operator
 * lists in GOV_WITNESS_KEYS and what anyone checks the cosignatures with.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import {
  generateKeyPair,
  KeyFormatError,
  loadSignerKey,
  type NoteSigner,
  SIGNATURE_TYPE_COSIGNATURE_V1,
} from '../merkle-core';
import { createFileAtomic } from '../runtime/support/atomic-file';

export class WitnessKeyError extends Error {
  override readonly name = 'WitnessKeyError';
}

export interface WitnessKey {
  signer: NoteSigner;
  /** `<name>+<key id>+<base64>`: give it to the log operators whose logs this witness follows. */
  verifierKey: string;
  file: string;
  /** Whether this call created the key file. */
  created: boolean;
}

/** A default key name: `witness-<host name>`, reduced to what note key names allow. */
export function defaultWitnessName(hostname: string = os.hostname()): string {
  const host = hostname.replace(/[\s+]+/g, '-').replace(/[^\x21-\x7e]/g, '');
  return host === '' ? 'witness' : `witness-${host}`;
}

/** Loads the witness key in `file`; throws WitnessKeyError when it is missing or not a witness key. */
export function loadWitnessKey(file: string): WitnessKey {
  let text: string;
  try {
    text = fs.readFileSync(file, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT')
      throw new WitnessKeyError(
        `no witness key at ${file}: create one with \`gov witness keygen --out ${file}\``,
      );
    throw error;
  }
  let signer: NoteSigner;
  try {
    signer = loadSignerKey(text);
  } catch (error) {
    if (error instanceof KeyFormatError)
      throw new WitnessKeyError(`${file} is not a note signer key: ${error.message}`);
    throw error;
  }
  if (signer.type !== SIGNATURE_TYPE_COSIGNATURE_V1) {
    throw new WitnessKeyError(
      `${file} holds an Ed25519 log key (type 0x01); a witness cosigns with a cosignature/v1 (0x04) key: create one with \`gov witness keygen\``,
    );
  }
  return { signer, verifierKey: signer.verifierKey, file, created: false };
}

/**
 * Writes a fresh witness key to `file`, never replacing an existing one (a witness that loses its key
 * starts over as a new witness, so overwriting would be a silent identity change).
 */
export function createWitnessKey(file: string, name: string): WitnessKey {
  let signerKey: string;
  try {
    ({ signerKey } = generateKeyPair(name, SIGNATURE_TYPE_COSIGNATURE_V1));
  } catch (error) {
    if (error instanceof KeyFormatError)
      throw new WitnessKeyError(`invalid witness name ${JSON.stringify(name)}: use no spaces and no '+'`);
    throw error;
  }
  fs.mkdirSync(path.dirname(path.resolve(file)), { recursive: true });
  if (!createFileAtomic(file, `${signerKey}\n`, 0o600)) {
    throw new WitnessKeyError(
      `${file} already exists; the witness keeps its key (remove the file to start over)`,
    );
  }
  return { ...loadWitnessKey(file), created: true };
}

/** The key in `file`, created (named `name`) when the file does not exist yet. */
export function loadOrCreateWitnessKey(file: string, name: string): WitnessKey {
  if (fs.existsSync(file)) return loadWitnessKey(file);
  try {
    return createWitnessKey(file, name);
  } catch (error) {
    // Another process created it meanwhile: use that one.
    if (error instanceof WitnessKeyError && fs.existsSync(file)) return loadWitnessKey(file);
    throw error;
  }
}
