import { type ChildProcess, spawn } from 'node:child_process';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';

/** The repository (this file also runs built, from dist/, where a benchmark starts the CI servers). */
export const REPO_ROOT = path.resolve(
  __dirname,
  __dirname.includes(`${path.sep}dist${path.sep}`) ? '../../..' : '../..',
);
const GOV_CLI = path.join(REPO_ROOT, 'cli/gov.ts');

/**
 * Starts a TypeScript file as ONE node process with tsx as a loader (the tsx CLI would fork a second
 * process, and a SIGKILL would then hit only the wrapper, not the worker): cwd the repository, `env`
 * merged over this process's, stdin closed, stdout and stderr piped.
 */
export function spawnTypeScript(file: string, args: string[], env: NodeJS.ProcessEnv): ChildProcess {
  return spawn(process.execPath, ['--import', 'tsx', file, ...args], {
    cwd: REPO_ROOT,
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
}

/** Starts a script of `tests/children/`. */
export function spawnChild(script: string, args: string[], env: NodeJS.ProcessEnv = {}): ChildProcess {
  return spawnTypeScript(path.join(REPO_ROOT, 'tests/children', script), args, env);
}

/** Starts the `gov` CLI (for a long-running command such as `gov witness`; see runGov otherwise). */
export function spawnGov(args: string[], env: NodeJS.ProcessEnv = {}): ChildProcess {
  return spawnTypeScript(GOV_CLI, args, env);
}

export interface GovRun {
  code: number | null;
  stdout: string;
  stderr: string;
}

export interface GovRunOptions {
  /**
   * The data folder whose stores and keys the command uses (GOV_DATA_DIR). The other store variables
   * are cleared, so a store named in the test's own environment is never used.
   */
  dataDir?: string;
  /** More environment for the command, applied last. */
  env?: NodeJS.ProcessEnv;
}

/**
 * Runs `gov <args>` to the end, as an operator would, and resolves with its exit code (null if a
 * signal ended it) and everything it printed, decoded as UTF-8. It waits for 'close', not 'exit', so no
 * output still in the pipes is lost. Rejects only if the process cannot be started.
 */
export function runGov(args: string[], options: GovRunOptions = {}): Promise<GovRun> {
  const env = {
    ...(options.dataDir === undefined
      ? {}
      : {
          GOV_DATA_DIR: options.dataDir,
          GOV_EVENT_STORE_FILE: '',
          GOV_READ_STORE_FILE: '',
          GOV_EVENT_STORE_URL: '',
          GOV_READ_STORE_URL: '',
        }),
    ...options.env,
  };
  return new Promise((resolve, reject) => {
    const child = spawnGov(args, env);
    let stdout = '';
    let stderr = '';
    child.stdout!.setEncoding('utf8').on('data', (chunk: string) => {
      stdout += chunk;
    });
    child.stderr!.setEncoding('utf8').on('data', (chunk: string) => {
      stderr += chunk;
    });
    child.once('error', reject);
    child.once('close', (code) => resolve({ code, stdout, stderr }));
  });
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

/** A TCP port free on 127.0.0.1 right now (for a child process to listen on). */
export async function freePort(): Promise<number> {
  const server = http.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}
