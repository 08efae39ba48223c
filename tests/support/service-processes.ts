/**
 * The service's own processes in end-to-end tests: the embedded server (`runtime/main.ts`) or a
 * topology role (`runtime/roles/*.ts`), each started from its TypeScript entry point as one node process,
 * with its last output kept for a failure's message.
 */
import type { ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import type { HealthReport } from '../../read-api/governance/service/health';
import { exited, REPO_ROOT, spawnTypeScript } from './children';

export interface ServiceProcess {
  name: string;
  /** http://127.0.0.1:<port> */
  url: string;
  child: ChildProcess;
  /** The last chunks of stdout and stderr. */
  output: string[];
}

/**
 * Starts `entry` (a path under the repository) listening on `port` (GOV_PORT, or GOV_PLATFORM_PORT
 * for the platform's process), `env` over this process's. With
 * `logFile`, its whole output is also appended there (a failure's message holds only the last of it).
 */
export function startServiceProcess(
  name: string,
  entry: string,
  port: number,
  env: NodeJS.ProcessEnv,
  logFile?: string,
): ServiceProcess {
  // The platform's own process listens on GOV_PLATFORM_PORT (and on no GOV_PORT); every other on GOV_PORT.
  const listening =
    path.basename(entry) === 'platform.ts'
      ? { GOV_PORT: '0', GOV_PLATFORM_PORT: String(port) }
      : { GOV_PORT: String(port) };
  const child = spawnTypeScript(path.join(REPO_ROOT, entry), [], {
    GOV_PLATFORM_PORT: '0',
    ...env,
    ...listening,
  });
  const output: string[] = [];
  if (logFile) fs.mkdirSync(path.dirname(logFile), { recursive: true });
  const log = logFile ? fs.createWriteStream(logFile, { flags: 'a' }) : null;
  child.once('exit', () => log?.end());
  const keep = (chunk: Buffer) => {
    output.push(chunk.toString('utf8'));
    if (output.length > 400) output.shift();
    log?.write(chunk);
  };
  child.stdout!.on('data', keep);
  child.stderr!.on('data', keep);
  return { name, url: `http://127.0.0.1:${port}`, child, output };
}

export function isRunning(service: ServiceProcess): boolean {
  return service.child.exitCode === null && service.child.signalCode === null;
}

/** Resolves once GET /health answers 200; throws with the process's output if it ends or times out. */
export async function waitHealthy(service: ServiceProcess, timeoutMs = 60_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (!isRunning(service)) break;
    try {
      if ((await fetch(`${service.url}/health`)).ok) return;
    } catch {
      // not listening yet
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`${service.name} did not become healthy:\n${lastOutput(service)}`);
}

/** SIGKILLs the process (if it still runs) and waits until it has ended. */
export async function killHard(service: ServiceProcess): Promise<void> {
  if (isRunning(service)) service.child.kill('SIGKILL');
  await exited(service.child);
}

/** SIGTERM (a graceful stop) and waits until the process has ended. */
export async function stopGracefully(service: ServiceProcess): Promise<void> {
  if (isRunning(service)) service.child.kill('SIGTERM');
  await exited(service.child);
}

export function lastOutput(service: ServiceProcess, chars = 4000): string {
  const ended = service.child.exitCode ?? service.child.signalCode;
  return `--- ${service.name}${ended === null ? '' : ` (ended: ${ended})`}\n${service.output.join('').slice(-chars)}`;
}

/**
 * The sum of every sample of a metric (labelled or not) in the process's Prometheus exposition, or
 * null when the process does not answer or does not expose it.
 */
export async function metric(url: string, name: string): Promise<number | null> {
  let text: string;
  try {
    text = await (await fetch(`${url}/v1/metrics`)).text();
  } catch {
    return null;
  }
  let total: number | null = null;
  for (const match of text.matchAll(new RegExp(`^${name}(?:\\{[^}]*\\})? (\\S+)$`, 'gm')))
    total = (total ?? 0) + Number(match[1]);
  return total;
}

/** The process's GET /health (200 or 503), or null when it does not answer. */
export async function health(url: string): Promise<HealthReport | null> {
  try {
    return (await (await fetch(`${url}/health`)).json()) as HealthReport;
  } catch {
    return null;
  }
}

/** Polls `condition` every 50 ms; throws naming `what` after `timeoutMs`. */
export async function until(
  condition: () => boolean | Promise<boolean>,
  what: string,
  timeoutMs: number,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/** The all-in-one server (`npm start`) on the embedded stores in `dataDir`, webhooks to 127.0.0.1 allowed. */
export function startEmbeddedProcess(
  dataDir: string,
  port: number,
  env: NodeJS.ProcessEnv = {},
): ServiceProcess {
  return startServiceProcess('embedded server', 'runtime/main.ts', port, {
    GOV_HOST: '127.0.0.1',
    GOV_DATA_DIR: dataDir,
    GOV_EVENT_STORE_FILE: '',
    GOV_READ_STORE_FILE: '',
    GOV_LOG_LEVEL: 'warn',
    GOV_WEBHOOK_ALLOW: '127.0.0.1',
    ...env,
  });
}
