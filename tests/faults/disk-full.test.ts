/**
 * Fault: the data folder's disk fills up under admission load.
 *
 * The data folder is a small tmpfs, and the read models live on a second one mounted inside it, so the
 * test can fill both, then the read models' disk alone:
 *   both full: every write fails. Admissions must be refused with a 5xx in the API's error shape that
 *   says the disk is full, and never answered 201 unless durable;
 *   the read models' disk full: events are stored but projections, delivery queues and the delivery
 *   log cannot be written. The service must wait and recover, losing no webhook.
 * After each, space is freed by deleting a filler file and admissions resume on the same process. A
 * SIGKILL at the end shows every 201 was on disk; then every promise holds and both SQLite files pass
 * their integrity check.
 *
 * Mounting needs root (CI runs as root); where it is not permitted the suite is skipped and says so.
 */
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import { EmbeddedUnderLoad } from '../support/embedded-under-load';
import { lastOutput, metric, until } from '../support/service-processes';
import { tempDir } from '../support/temp-dir';

/** Mounts a tmpfs of `megabytes` on `dir` (created); false when this process may not mount. */
function mountTmpfs(dir: string, megabytes: number): boolean {
  fs.mkdirSync(dir, { recursive: true });
  return spawnSync('mount', ['-t', 'tmpfs', '-o', `size=${megabytes}m`, 'tmpfs', dir]).status === 0;
}

function unmount(dir: string): void {
  spawnSync('umount', [dir]);
}

/** Whether this process may mount a tmpfs (root does), tried on a scratch folder. */
function mayMount(): boolean {
  const probe = tempDir('gov-fault-mount-probe');
  try {
    const mounted = mountTmpfs(probe.dir, 1);
    if (mounted) unmount(probe.dir);
    return mounted;
  } finally {
    probe.remove();
  }
}

/** Writes a file in `dir` until its disk refuses more; returns the file. */
function fillDisk(dir: string): string {
  const filler = path.join(dir, 'filler');
  const fd = fs.openSync(filler, 'w');
  try {
    // Big writes first, then small ones for what a big one could not take.
    for (const size of [1024 * 1024, 4096, 512]) {
      const chunk = Buffer.alloc(size, 1);
      try {
        for (;;) fs.writeSync(fd, chunk);
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== 'ENOSPC') throw error;
      }
    }
  } finally {
    fs.closeSync(fd);
  }
  return filler;
}

const title = 'fault: the data folder’s disk fills up under load';
const permitted = mayMount();
(permitted ? describe : describe.skip)(
  permitted ? title : `${title} (skipped: mounting a tmpfs is not permitted here; it needs root)`,
  () => {
    let temp: ReturnType<typeof tempDir> | null = null;
    let dataDir = '';
    let readStoreDir = '';
    let readStoreFile = '';
    let scene: EmbeddedUnderLoad | null = null;

    beforeAll(() => {
      temp = tempDir('gov-fault-disk');
      dataDir = path.join(temp.dir, 'data');
      readStoreDir = path.join(dataDir, 'read-store');
      readStoreFile = path.join(readStoreDir, 'read-models.db');
      if (!mountTmpfs(dataDir, 24) || !mountTmpfs(readStoreDir, 16))
        throw new Error(`could not mount a tmpfs on ${dataDir} and ${readStoreDir}`);
    });

    afterAll(async () => {
      await scene?.dispose();
      if (!temp) return;
      unmount(readStoreDir);
      unmount(dataDir);
      temp.remove();
    });

    it('given admissions in flight, when the disk is full, then they get a 5xx in the error shape or wait, and once space is freed they resume and every promise holds', async () => {
      scene = await EmbeddedUnderLoad.start(dataDir, { GOV_READ_STORE_FILE: readStoreFile }, 6);
      const { load } = scene;
      try {
        await load.admitMore(30);

        // Both disks full: nothing can be written.
        const answersBefore = load.others.length;
        const fillers = [fillDisk(readStoreDir), fillDisk(dataDir)];
        await until(() => load.others.length - answersBefore >= 20, 'admissions to be refused', 30_000);
        for (const filler of fillers) fs.rmSync(filler);
        const refusals = load.others.slice(answersBefore);
        // Every refusal was a 5xx in the API's error shape, and they said why.
        for (const refusal of refusals) {
          expect(refusal.status).toBeGreaterThanOrEqual(500);
          expect(refusal.body).toEqual({
            error: expect.stringMatching(/^(INTERNAL_ERROR|SERVICE_UNAVAILABLE)$/),
            message: expect.any(String),
            correlation_id: expect.any(String),
          });
        }
        const saidWhy = refusals.filter((r) =>
          (r.body as { message: string }).message.includes('disk is full'),
        );
        expect(saidWhy.length).toBeGreaterThan(0);
        await load.admitMore(30);

        // The read models' disk alone full: events are stored, their projections cannot be.
        const url = scene.server.url;
        const projectorErrors = (await metric(url, 'gov_projector_errors_total')) ?? 0;
        const filler = fillDisk(readStoreDir);
        await until(
          async () => ((await metric(url, 'gov_projector_errors_total')) ?? 0) > projectorErrors,
          'a projector to fail on the full disk',
          30_000,
        );
        await new Promise((resolve) => setTimeout(resolve, 1500));
        fs.rmSync(filler);
        await load.admitMore(30);
        expect(scene.server.child.exitCode).toBeNull();
      } catch (error) {
        throw new Error(`${(error as Error).message}\n${lastOutput(scene.server)}`);
      } finally {
        await load.stop();
      }
      // Every 201 was durable: it survives a SIGKILL.
      await scene.killAndRestart();
      await scene.promisesKept();
      await scene.dispose();
      scene = null;
      for (const file of [path.join(dataDir, 'events.db'), readStoreFile]) {
        const db = new Database(file, { readonly: true });
        expect(db.pragma('integrity_check', { simple: true })).toBe('ok');
        db.close();
      }
    }, 150_000);
  },
);
