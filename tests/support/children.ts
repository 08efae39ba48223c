import { type ChildProcess, spawn } from 'node:child_process';
import path from 'node:path';

export const REPO_ROOT = path.resolve(__dirname, '../..');
/**
 * Starts a TypeScript script of `tests/children/` as ONE node process with tsx as a loader. (The tsx
 * CLI would fork a second process, and a SIGKILL would then hit only the wrapper, not the worker.)
 */
export function spawnChild(script: string, args: string[], env: NodeJS.ProcessEnv = {}): ChildProcess {
  return spawn(
    process.execPath,
    ['--import', 'tsx', path.join(REPO_ROOT, 'tests/children', script), ...args],
    {
      cwd: REPO_ROOT,
      env: { ...process.env, ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
}

/** Resolves with the exit code or signal once the child has ended. */
export function exited(child: ChildProcess): Promise<{ code: number | null; signal: NodeJS.Signals | null }> {
  return new Promise((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) {
      resolve({ code: child.exitCode, signal: child.signalCode });
      return;
    }
    child.once('exit', (code, signal) => resolve({ code, signal }));
  });
}

/** Collects a child's stdout lines as they arrive. */
export function lines(child: ChildProcess): string[] {
  const out: string[] = [];
  let partial = '';
  child.stdout!.setEncoding('utf8');
  child.stdout!.on('data', (chunk: string) => {
    const parts = (partial + chunk).split('\n');
    partial = parts.pop() ?? '';
    out.push(...parts);
  });
  return out;
}

/** Resolves once the child's stdout has produced at least `count` lines. */
export async function waitForLines(out: string[], count: number, timeoutMs = 15_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (out.length < count) {
    if (Date.now() > deadline)
      throw new Error(`child printed ${out.length} of ${count} lines in ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}
