/** The witness's own key file: created once, never replaced, and only ever a cosignature/v1 key. */
import fs from 'node:fs';
import path from 'node:path';
import { generateKeyPair, loadVerifierKey, SIGNATURE_TYPE_COSIGNATURE_V1 } from '../merkle-core';
import { tempDir } from '../tests/support/temp-dir';
import { createWitnessKey, defaultWitnessName, loadOrCreateWitnessKey, loadWitnessKey } from './witness-key';

describe('the witness key file', () => {
  let temp: { dir: string; remove: () => void };
  beforeEach(() => {
    temp = tempDir('gov-witness-key');
  });
  afterEach(() => temp.remove());

  it('is created on first use (mode 0600) and the same key is loaded afterwards', () => {
    const file = path.join(temp.dir, 'keys', 'witness.key');
    const created = loadOrCreateWitnessKey(file, 'witness.example');
    expect(created.created).toBe(true);
    expect(fs.statSync(file).mode & 0o777).toBe(0o600);
    const verifier = loadVerifierKey(created.verifierKey);
    expect(verifier).toMatchObject({ name: 'witness.example', type: SIGNATURE_TYPE_COSIGNATURE_V1 });
    const again = loadOrCreateWitnessKey(file, 'another-name');
    expect(again).toMatchObject({ created: false, verifierKey: created.verifierKey });
  });

  it('is never overwritten by keygen', () => {
    const file = path.join(temp.dir, 'witness.key');
    const first = createWitnessKey(file, 'witness.example');
    expect(() => createWitnessKey(file, 'witness.example')).toThrow(/already exists/);
    expect(loadWitnessKey(file).verifierKey).toBe(first.verifierKey);
  });

  it('refuses a log key, a missing file and a bad name with what to do', () => {
    const file = path.join(temp.dir, 'log.key');
    fs.writeFileSync(file, generateKeyPair('log.example/a').signerKey);
    expect(() => loadWitnessKey(file)).toThrow(/Ed25519 log key .*`gov witness keygen`/);
    expect(() => loadWitnessKey(path.join(temp.dir, 'none.key'))).toThrow(
      /no witness key at .*gov witness keygen/,
    );
    expect(() => createWitnessKey(path.join(temp.dir, 'w.key'), 'has space')).toThrow(/invalid witness name/);
  });

  it('has a default name a note key accepts, from the host name', () => {
    expect(defaultWitnessName('build host+1')).toBe('witness-build-host-1');
    expect(defaultWitnessName('')).toBe('witness');
  });
});
