import fs from 'node:fs';
import path from 'node:path';
import { tempDir } from '../../tests/support/temp-dir';
import { keysDirOf } from './key-files';
import { loadOrCreateKeyring } from './keyring';
import { ensureLogKey, listLogKeys, logKeyFile, readLogKey } from './log-keys';

const ORIGIN = 'gov.example/log';
const DEDICATED = `dedicated-${'ab'.repeat(12)}`;

describe('the keys of the other logs', () => {
  let dataDir: string;
  let remove: () => void;
  beforeEach(() => {
    ({ dir: dataDir, remove } = tempDir('gov-log-keys'));
  });
  afterEach(() => remove());

  it('given a first start, then the test log has its key, named after the shared origin, and the keyring signs with it', () => {
    const keyring = loadOrCreateKeyring(dataDir, ORIGIN);
    const keysDir = keysDirOf(dataDir);
    const file = logKeyFile(keysDir, 'test');
    expect(path.relative(keysDir, file)).toBe(path.join('logs', 'test.key'));
    expect(fs.statSync(file).mode & 0o777).toBe(0o600);
    const signer = keyring.logSignerOf('test');
    expect(signer.name).toBe(`${ORIGIN}/test`);
    expect(signer.verifierKey).not.toBe(keyring.logSigner.verifierKey);
    expect(keyring.logSignerOf('shared')).toBe(keyring.logSigner);
    // A second start keeps it.
    expect(loadOrCreateKeyring(dataDir, 'other/log').logSignerOf('test').verifierKey).toBe(
      signer.verifierKey,
    );
  });

  it('given a dedicated log, when its key is ensured twice, then one key is made and kept, and listed', () => {
    const keysDir = keysDirOf(dataDir);
    loadOrCreateKeyring(dataDir, ORIGIN);
    const first = ensureLogKey(keysDir, DEDICATED, `${ORIGIN}/${DEDICATED}`);
    const second = ensureLogKey(keysDir, DEDICATED, `${ORIGIN}/${DEDICATED}`);
    expect(second.verifierKey).toBe(first.verifierKey);
    expect(listLogKeys(keysDir).map((key) => [key.log, key.verifier_key])).toEqual([
      [DEDICATED, first.verifierKey],
      ['test', readLogKey(keysDir, 'test')!.verifierKey],
    ]);
  });

  it('given a key file of another origin, then ensuring it fails naming the file', () => {
    const keysDir = keysDirOf(dataDir);
    ensureLogKey(keysDir, DEDICATED, `elsewhere/${DEDICATED}`);
    expect(() => ensureLogKey(keysDir, DEDICATED, `${ORIGIN}/${DEDICATED}`)).toThrow(
      new RegExp(`${DEDICATED}.key is the key of origin 'elsewhere/`),
    );
  });

  it('given a missing dedicated key, then the keyring says which file is missing; names that are no log are refused', () => {
    const keyring = loadOrCreateKeyring(dataDir, ORIGIN);
    expect(() => keyring.logSignerOf(DEDICATED)).toThrow(/logs\/dedicated-abab.*\.key is missing/);
    expect(() => logKeyFile(keysDirOf(dataDir), '../log')).toThrow(/not the name of a log/);
    expect(() => logKeyFile(keysDirOf(dataDir), 'shared')).toThrow(/not the name of a log/);
  });
});
