/** One witness process per state file; a lock left by a process that is gone does not block forever. */
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { tempDir } from '../tests/support/temp-dir';
import { StateLock, StateLockBusyError } from './state-lock';

const mark = (pid: number, host = os.hostname()) =>
  `${JSON.stringify({ pid, host, token: 'left-behind', since: '2026-01-01T00:00:00.000Z' })}\n`;

describe('the state lock', () => {
  let temp: { dir: string; remove: () => void };
  let file: string;

  beforeEach(() => {
    temp = tempDir('gov-witness-lock');
    file = path.join(temp.dir, 'state.json.lock');
  });
  afterEach(() => temp.remove());

  it('is held once: a second acquisition in this process fails until the first is released, which removes the file', () => {
    const lock = StateLock.acquire(file, 'state.json');
    expect(JSON.parse(fs.readFileSync(file, 'utf8'))).toMatchObject({
      pid: process.pid,
      host: os.hostname(),
    });
    expect(() => StateLock.acquire(file, 'state.json')).toThrow(/already open in this process/);
    lock.release();
    expect(fs.existsSync(file)).toBe(false);
    StateLock.acquire(file, 'state.json').release();
  });

  it('refuses a lock held by another live process, naming it and what to do', async () => {
    const holder = spawn(process.execPath, ['-e', 'setTimeout(() => {}, 30000)'], { stdio: 'ignore' });
    try {
      fs.writeFileSync(file, mark(holder.pid!));
      expect(() => StateLock.acquire(file, 'state.json')).toThrow(StateLockBusyError);
      expect(() => StateLock.acquire(file, 'state.json')).toThrow(
        new RegExp(`state\\.json is in use by pid ${holder.pid} on host .*delete .*state\\.json\\.lock`),
      );
    } finally {
      holder.kill('SIGKILL');
      await new Promise((resolve) => holder.once('exit', resolve));
    }
    // Now its holder is gone: the lock is stale and taken over.
    const lock = StateLock.acquire(file, 'state.json');
    expect(JSON.parse(fs.readFileSync(file, 'utf8'))).toMatchObject({ pid: process.pid });
    lock.release();
  });

  it('refuses a lock of a process on another host sharing the folder, which it cannot check', () => {
    fs.writeFileSync(file, mark(4242, 'another-host.example'));
    expect(() => StateLock.acquire(file, 'state.json')).toThrow(
      /pid 4242 on host another-host\.example.*cannot check/,
    );
    expect(fs.readFileSync(file, 'utf8')).toBe(mark(4242, 'another-host.example'));
  });

  it('takes over a lock with its own pid left by an earlier process (a restarted container reuses pids)', () => {
    fs.writeFileSync(file, mark(process.pid));
    const lock = StateLock.acquire(file, 'state.json');
    expect(JSON.parse(fs.readFileSync(file, 'utf8')).token).not.toBe('left-behind');
    lock.release();
    expect(fs.readdirSync(temp.dir)).toEqual([]);
  });

  it('does not remove a lock another process took over after this one', () => {
    const lock = StateLock.acquire(file, 'state.json');
    fs.writeFileSync(file, mark(4242, 'another-host.example'));
    lock.release();
    expect(fs.existsSync(file)).toBe(true);
  });
});
