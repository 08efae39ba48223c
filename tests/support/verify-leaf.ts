/**
 * Runs docs/verify-leaf.mjs, the README's verifier of one leaf that uses nothing but the public log
 * endpoints and node:crypto (no code of this project), as a reader of the README would.
 */
import { execFile } from 'node:child_process';
import path from 'node:path';
import { REPO_ROOT } from './children';

const SCRIPT = path.join(REPO_ROOT, 'docs/verify-leaf.mjs');

export interface VerifyLeafRun {
  code: number;
  stdout: string;
  stderr: string;
}

/** `node docs/verify-leaf.mjs <base> <index> <logKey>`: `base` is the server's URL or a log's URL. */
export function verifyLeaf(base: string, index: number, logKey: string): Promise<VerifyLeafRun> {
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      [SCRIPT, base, String(index), logKey],
      { timeout: 30_000 },
      (error, stdout, stderr) =>
        resolve({ code: error ? (typeof error.code === 'number' ? error.code : -1) : 0, stdout, stderr }),
    );
  });
}
