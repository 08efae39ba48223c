import { spawn, spawnSync } from 'node:child_process';
import { createPublicKey } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { authorityNodeIdOf } from '../../domain/governance/envelope';
import { validatorIdOf } from '../../domain/governance/validators';
import { timestampExtension } from '../../domain/log';
import { generateKeyPair, loadSignerKey, loadVerifierKey, signCheckpoint } from '../../merkle-core';
import { LogVerifierKeys } from '../../projectors/log/log-verifier-keys';
import { tempDir } from '../../tests/support/temp-dir';
import { writeFileAtomic } from '../support/atomic-file';
import { keyFileName, readCurrentKey, VALIDATOR_COUNT } from './key-files';
import { generateKeys } from './key-generation';
import { HISTORY_FILE, KeyHistoryError, readHistory, readPublishedKeys, writeHistory } from './key-history';
import { KeyRotationError, rotateKeys } from './key-rotation';
import { openServerKeyring } from './keyring';
import { IN_USE_FILE, KeysFolderBusyError, LOCK_FILE, markServerUsing, withKeysLock } from './keys-lock';

const ORIGIN = 'keys.test/log';
const T1 = new Date('2030-01-01T10:00:00.000Z');
const T2 = new Date('2030-01-02T10:00:00.000Z');
const at = (time: Date) => () => time;

/** A pid that belonged to a process which has exited. */
function deadPid(): number {
  const child = spawnSync(process.execPath, ['-e', '']);
  return child.pid!;
}

describe('key history', () => {
  let temp: { dir: string; remove: () => void };
  let keysDir: string;
  beforeEach(async () => {
    temp = tempDir('gov-key-history');
    keysDir = path.join(temp.dir, 'keys');
    await generateKeys(keysDir, { logOrigin: ORIGIN, force: false, signed: false });
  });
  afterEach(() => temp.remove());

  const logKeyText = () => readCurrentKey(keysDir, 'log')!.text;

  describe('readPublishedKeys', () => {
    it('given fresh keys, then it lists one current log key, one authority key and every validator, none retired', () => {
      const published = readPublishedKeys(keysDir);
      expect(published.log).toEqual([
        { verifier_key: loadSignerKey(logKeyText().trim()).verifierKey, status: 'current' },
      ]);
      expect(published.authority).toHaveLength(1);
      expect(published.validators).toHaveLength(VALIDATOR_COUNT);
      for (const key of [...published.authority, ...published.validators]) {
        expect(key.status).toBe('current');
        expect(key).not.toHaveProperty('retired_at');
      }
    });

    it('then every id is derived from its public key as verifiers derive it', () => {
      const published = readPublishedKeys(keysDir);
      const spki = (base64: string) =>
        createPublicKey({ key: Buffer.from(base64, 'base64'), format: 'der', type: 'spki' });
      expect(published.authority[0]!.node_id).toBe(
        authorityNodeIdOf(spki(published.authority[0]!.public_key)),
      );
      for (const validator of published.validators)
        expect(validator.validator_id).toBe(validatorIdOf(spki(validator.public_key)));
      expect(loadVerifierKey(published.log[0]!.verifier_key).name).toBe(ORIGIN);
    });

    it('given no keys folder, then it fails saying how to create one', () => {
      expect(() => readPublishedKeys(path.join(temp.dir, 'nowhere'))).toThrow(/gov keys generate/);
    });
  });

  describe('rotating the log key twice', () => {
    let first: string;
    let second: string;
    let third: string;
    beforeEach(async () => {
      first = readPublishedKeys(keysDir).log[0]!.verifier_key;
      await rotateKeys(keysDir, { kind: 'log' }, at(T1));
      second = readPublishedKeys(keysDir).log[0]!.verifier_key;
      await rotateKeys(keysDir, { kind: 'log' }, at(T2));
      third = readPublishedKeys(keysDir).log[0]!.verifier_key;
    });

    it('then the current key comes first, then the retired ones, newest retirement first', () => {
      expect(readPublishedKeys(keysDir).log).toEqual([
        { verifier_key: third, status: 'current' },
        { verifier_key: second, status: 'retired', retired_at: T2.toISOString() },
        { verifier_key: first, status: 'retired', retired_at: T1.toISOString() },
      ]);
    });

    it('then every key keeps the origin and has its own key id', () => {
      const keys = [first, second, third].map((text) => loadVerifierKey(text));
      expect(keys.map((key) => key.name)).toEqual([ORIGIN, ORIGIN, ORIGIN]);
      expect(new Set(keys.map((key) => Buffer.from(key.keyId).toString('hex'))).size).toBe(3);
    });

    it('then the history holds only public parts, with created and retired times', () => {
      const text = fs.readFileSync(path.join(keysDir, HISTORY_FILE), 'utf8');
      expect(text).not.toMatch(/PRIVATE/);
      expect(readHistory(keysDir)).toEqual([
        expect.objectContaining({ kind: 'log', verifier_key: first, retired_at: T1.toISOString() }),
        expect.objectContaining({ kind: 'log', verifier_key: second, retired_at: T2.toISOString() }),
      ]);
      for (const entry of readHistory(keysDir)) expect(entry.created_at).toMatch(/^\d{4}-\d{2}-\d{2}T/);
    });

    it('then no other key changed', async () => {
      const published = readPublishedKeys(keysDir);
      expect(published.authority.map((k) => k.status)).toEqual(['current']);
      expect(published.validators.map((k) => k.status)).toEqual(Array(VALIDATOR_COUNT).fill('current'));
    });
  });

  describe('rotating validators', () => {
    it('given validator 3 then all are rotated, then the four new keys come first, then the retired ones newest first and by number', async () => {
      const original = readPublishedKeys(keysDir).validators.map((v) => v.validator_id);
      await rotateKeys(keysDir, { kind: 'validator', validator: 3 }, at(T1));
      const afterOne = readPublishedKeys(keysDir).validators;
      expect(afterOne.filter((v) => v.status === 'current').map((v) => v.validator_id)).toEqual([
        original[0],
        original[1],
        expect.not.stringMatching(original[2]!),
        original[3],
      ]);
      const middle = afterOne.filter((v) => v.status === 'current').map((v) => v.validator_id);
      await rotateKeys(keysDir, { kind: 'validator' }, at(T2));
      const published = readPublishedKeys(keysDir).validators;
      expect(published.map((v) => v.status)).toEqual([
        ...Array(4).fill('current'),
        ...Array(5).fill('retired'),
      ]);
      expect(published.slice(4).map((v) => [v.validator_id, v.retired_at])).toEqual([
        ...middle.map((id) => [id, T2.toISOString()]),
        [original[2], T1.toISOString()],
      ]);
      const current = published.slice(0, 4).map((v) => v.validator_id);
      for (const id of current) expect([...original, ...middle]).not.toContain(id);
    });

    it('given the authority key is rotated, then the old node id is listed as retired', async () => {
      const [old] = readPublishedKeys(keysDir).authority;
      const [rotation] = await rotateKeys(keysDir, { kind: 'authority' }, at(T1));
      expect(rotation!.retired).toMatchObject({ kind: 'authority', node_id: old!.node_id });
      expect(rotation!.current).toMatchObject({
        kind: 'authority',
        node_id: expect.stringMatching(/^node_/),
      });
      const current = rotation!.current as { node_id: string; public_key: string };
      expect(current.node_id).not.toBe(old!.node_id);
      expect(readPublishedKeys(keysDir).authority).toEqual([
        { node_id: current.node_id, public_key: current.public_key, status: 'current' },
        {
          node_id: old!.node_id,
          public_key: old!.public_key,
          status: 'retired',
          retired_at: T1.toISOString(),
        },
      ]);
    });

    it('given a key file is missing, then rotation refuses and changes nothing', async () => {
      fs.rmSync(path.join(keysDir, keyFileName('authority')));
      await expect(rotateKeys(keysDir, { kind: 'authority' })).rejects.toThrow(KeyRotationError);
      expect(readHistory(keysDir)).toEqual([]);
    });
  });

  describe('crash safety', () => {
    it('given a rotation interrupted after the history was written, then the still-current key is not listed as retired, and the next rotation records it once', async () => {
      const current = readCurrentKey(keysDir, 'log')!;
      // What a crash between the history write and the key file's rename leaves behind.
      writeHistory(keysDir, [
        { ...current.info, created_at: current.created_at, retired_at: T1.toISOString() },
      ]);
      expect(readPublishedKeys(keysDir).log).toEqual([
        { verifier_key: loadSignerKey(current.text.trim()).verifierKey, status: 'current' },
      ]);
      await rotateKeys(keysDir, { kind: 'log' }, at(T2));
      expect(readHistory(keysDir)).toEqual([expect.objectContaining({ retired_at: T2.toISOString() })]);
    });

    it('given a temporary file left by a crashed write, then readers ignore it and the next rotation removes it', async () => {
      const leftover = path.join(keysDir, 'log.key.tmp-99999-deadbeef');
      fs.writeFileSync(leftover, 'PRIVATE+KEY+half');
      expect(readPublishedKeys(keysDir).log).toHaveLength(1);
      await rotateKeys(keysDir, { kind: 'log' });
      expect(fs.existsSync(leftover)).toBe(false);
    });

    it('given a file is replaced atomically, then a reader of the old file still reads it whole and no temporary file remains', () => {
      const file = path.join(keysDir, 'sample.txt');
      fs.writeFileSync(file, 'old content');
      const fd = fs.openSync(file, 'r');
      try {
        writeFileAtomic(file, 'new content');
        // Replaced by rename, never rewritten in place: the open file is the old one, unchanged.
        expect(fs.readFileSync(fd, 'utf8')).toBe('old content');
      } finally {
        fs.closeSync(fd);
      }
      expect(fs.readFileSync(file, 'utf8')).toBe('new content');
      expect(fs.readdirSync(keysDir).filter((name) => name.includes('.tmp-'))).toEqual([]);
    });

    it('given a rotated key file, then it is readable by its owner only', async () => {
      await rotateKeys(keysDir, { kind: 'validator', validator: 1 });
      expect(fs.statSync(path.join(keysDir, keyFileName('validator-1'))).mode & 0o777).toBe(0o600);
    });
  });

  describe('concurrency', () => {
    it('given another process holds the lock, then a rotation is refused naming it and changes nothing', async () => {
      const before = readPublishedKeys(keysDir);
      let refusal: unknown;
      await withKeysLock(keysDir, { purpose: 'another gov keys rotate' }, async () => {
        refusal = await rotateKeys(keysDir, { kind: 'log' }).catch((error: unknown) => error);
      });
      expect(refusal).toBeInstanceOf(KeysFolderBusyError);
      expect((refusal as Error).message).toMatch(/another gov keys rotate \(pid \d+ on host .*, running/);
      expect(readPublishedKeys(keysDir)).toEqual(before);
    });

    it('given rotations started at once by several processes, then each runs alone or is refused, and the history stays whole', async () => {
      const script =
        `require('./runtime/keys/key-rotation').rotateKeys(${JSON.stringify(keysDir)}, { kind: 'log' }).then(` +
        `() => process.exit(0), (e) => process.exit(e.name === 'KeysFolderBusyError' ? 3 : 1))`;
      const codes = await Promise.all(
        [1, 2, 3, 4].map(
          () =>
            new Promise<number | null>((resolve) => {
              const child = spawn(process.execPath, ['--import', 'tsx', '-e', script], {
                cwd: path.resolve(__dirname, '../..'),
                stdio: 'ignore',
              });
              child.on('exit', (code) => resolve(code));
            }),
        ),
      );
      expect(codes.every((code) => code === 0 || code === 3)).toBe(true);
      const rotated = codes.filter((code) => code === 0).length;
      expect(rotated).toBeGreaterThanOrEqual(1);
      const published = readPublishedKeys(keysDir).log;
      expect(published).toHaveLength(1 + rotated);
      expect(new Set(published.map((k) => k.verifier_key)).size).toBe(published.length);
      expect(fs.existsSync(path.join(keysDir, LOCK_FILE))).toBe(false);
    });

    it('given a lock left by a process that crashed, then the refusal says so and how to recover', async () => {
      fs.writeFileSync(
        path.join(keysDir, LOCK_FILE),
        JSON.stringify({
          pid: deadPid(),
          host: os.hostname(),
          purpose: 'gov keys rotate',
          since: T1,
          token: 'x',
        }),
      );
      await expect(rotateKeys(keysDir, { kind: 'log' })).rejects.toThrow(
        /no longer running.*delete .*keys\.lock/s,
      );
    });

    it('given a running server uses the keys, then rotation is refused until it stops', async () => {
      const release = markServerUsing(keysDir, 'a running server');
      await expect(rotateKeys(keysDir, { kind: 'log' })).rejects.toThrow(/Stop the server/);
      release();
      await expect(rotateKeys(keysDir, { kind: 'log' })).resolves.toHaveLength(1);
    });

    it('given the mark of a server that crashed, then rotation goes ahead', async () => {
      fs.writeFileSync(
        path.join(keysDir, IN_USE_FILE),
        JSON.stringify({
          pid: deadPid(),
          host: os.hostname(),
          purpose: 'a running server',
          since: T1,
          token: 'x',
        }),
      );
      await expect(rotateKeys(keysDir, { kind: 'log' })).resolves.toHaveLength(1);
    });

    it('given a server opens the keyring, then it is marked in use until released', async () => {
      const keyring = await openServerKeyring(temp.dir, ORIGIN);
      expect(fs.existsSync(path.join(keysDir, IN_USE_FILE))).toBe(true);
      await expect(rotateKeys(keysDir, { kind: 'log' })).rejects.toThrow(KeysFolderBusyError);
      keyring.release();
      expect(fs.existsSync(path.join(keysDir, IN_USE_FILE))).toBe(false);
    });
  });

  describe('a damaged history', () => {
    it('given an entry whose id does not match its key, then reading fails naming the entry', async () => {
      await rotateKeys(keysDir, { kind: 'authority' }, at(T1));
      const file = path.join(keysDir, HISTORY_FILE);
      const doc = JSON.parse(fs.readFileSync(file, 'utf8'));
      doc.retired[0].node_id = 'node_000000000000000000000000';
      fs.writeFileSync(file, JSON.stringify(doc));
      expect(() => readPublishedKeys(keysDir)).toThrow(KeyHistoryError);
      expect(() => readPublishedKeys(keysDir)).toThrow(/retired\[0\]: node_id does not match public_key/);
    });

    it('given a history that is not JSON, then rotation refuses before changing any key', async () => {
      fs.writeFileSync(path.join(keysDir, HISTORY_FILE), '{"format": "gov-key-hist');
      const before = logKeyText();
      await expect(rotateKeys(keysDir, { kind: 'log' })).rejects.toThrow(/not valid JSON/);
      expect(logKeyText()).toBe(before);
    });
  });

  describe('generate', () => {
    it('given existing keys, then it keeps them all', async () => {
      const before = readPublishedKeys(keysDir);
      const results = await generateKeys(keysDir, { logOrigin: 'other/log', force: false, signed: false });
      expect(results.map((r) => r.outcome)).toEqual(Array(VALIDATOR_COUNT + 5).fill('kept'));
      expect(readPublishedKeys(keysDir)).toEqual(before);
    });

    it('given one key is missing, then it creates only that one', async () => {
      fs.rmSync(path.join(keysDir, keyFileName('validator-2')));
      const results = await generateKeys(keysDir, { logOrigin: ORIGIN, force: false, signed: false });
      expect(results.filter((r) => r.outcome === 'created').map((r) => path.basename(r.file))).toEqual([
        'validator-2.pem',
      ]);
    });

    it('given --force and nothing signed yet, then it replaces every key but the vault master key', async () => {
      const before = readPublishedKeys(keysDir);
      const vaultKey = fs.readFileSync(path.join(keysDir, 'vault-master.key'), 'utf8');
      const results = await generateKeys(keysDir, { logOrigin: ORIGIN, force: true, signed: false });
      // Vault entries are sealed under the master key whether or not anything was signed yet.
      expect(
        results.filter((r) => r.outcome !== 'replaced').map((r) => [path.basename(r.file), r.outcome]),
      ).toEqual([['vault-master.key', 'kept']]);
      expect(results).toHaveLength(VALIDATOR_COUNT + 5);
      expect(fs.readFileSync(path.join(keysDir, 'vault-master.key'), 'utf8')).toBe(vaultKey);
      expect(readPublishedKeys(keysDir).log[0]).not.toEqual(before.log[0]);
    });

    it('given --force once something is signed, then it refuses and points to rotation', async () => {
      const before = readPublishedKeys(keysDir);
      await expect(generateKeys(keysDir, { logOrigin: ORIGIN, force: true, signed: true })).rejects.toThrow(
        /gov keys rotate/,
      );
      expect(readPublishedKeys(keysDir)).toEqual(before);
    });
  });
});

describe('LogVerifierKeys', () => {
  const checkpointBy = (signerKey: string) =>
    signCheckpoint(
      { origin: ORIGIN, size: 3, rootHash: new Uint8Array(32), extensions: [timestampExtension(T1)] },
      loadSignerKey(signerKey),
    );

  it('given a checkpoint signed by a retired key, then its STH names that key', async () => {
    const temp = tempDir('gov-log-keys');
    try {
      const keysDir = path.join(temp.dir, 'keys');
      await generateKeys(keysDir, { logOrigin: ORIGIN, force: false, signed: false });
      const oldSigner = readCurrentKey(keysDir, 'log')!.text;
      await rotateKeys(keysDir, { kind: 'log' });
      const published = readPublishedKeys(keysDir).log.map((k) => k.verifier_key);
      const keys = new LogVerifierKeys(published);
      expect(keys.sthOf(checkpointBy(oldSigner)).log_id).toBe(published[1]);
      expect(keys.sthOf(checkpointBy(readCurrentKey(keysDir, 'log')!.text)).log_id).toBe(published[0]);
    } finally {
      temp.remove();
    }
  });

  it('given a checkpoint signed by an unknown key, then it fails saying so', () => {
    const keys = new LogVerifierKeys([]);
    expect(() => keys.sthOf(checkpointBy(generateKeyPair(ORIGIN).signerKey))).toThrow(
      /neither the current log key nor a retired one/,
    );
  });
});
