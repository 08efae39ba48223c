/**
 * Private Kafka and FerretDB instances for tests that stop or crash them: the CI server scripts
 * (.ci/servers) started on free ports under the test's own state folder, so no other suite (they use
 * the shared servers on 9092 and 27017) is disturbed.
 */
import { spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { freePort, REPO_ROOT } from './children';

function runScript(script: string, command: string, env: NodeJS.ProcessEnv): void {
  const result = spawnSync('bash', [path.join(REPO_ROOT, '.ci/servers', script), command], {
    env: { ...process.env, ...env },
    encoding: 'utf8',
  });
  if (result.status !== 0) throw new Error(`${script} ${command} failed:\n${result.stderr}`);
}

/** A single-node Kafka (KRaft) of its own. */
export class PrivateKafka {
  private constructor(
    private readonly env: NodeJS.ProcessEnv,
    /** `127.0.0.1:<port>`, for GOV_KAFKA_BROKERS. */
    readonly brokers: string,
  ) {}

  static async start(stateDir: string): Promise<PrivateKafka> {
    const [port, controllerPort] = [await freePort(), await freePort()];
    const env = {
      GOV_CI_STATE: stateDir,
      GOV_KAFKA_PORT: String(port),
      GOV_KAFKA_CONTROLLER_PORT: String(controllerPort),
    };
    runScript('kafka.sh', 'start', env);
    return new PrivateKafka(env, `127.0.0.1:${port}`);
  }

  /** Stops the broker (SIGTERM, as an operator's restart does); its data stays. */
  stop(): void {
    runScript('kafka.sh', 'stop', this.env);
  }

  /** Starts the stopped broker again on its data. */
  resume(): void {
    runScript('kafka.sh', 'resume', this.env);
  }

  dispose(): void {
    try {
      this.stop();
    } catch {
      // already stopped
    }
  }
}

/** A FerretDB (MongoDB wire protocol, on a PostgreSQL of its own) of its own. */
export class PrivateFerretDb {
  private constructor(
    private readonly env: NodeJS.ProcessEnv,
    private readonly stateDir: string,
    private readonly port: number,
  ) {}

  static async start(stateDir: string): Promise<PrivateFerretDb> {
    const port = await freePort();
    const env = { GOV_CI_STATE: stateDir, GOV_FERRETDB_PORT: String(port) };
    runScript('ferretdb.sh', 'start', env);
    return new PrivateFerretDb(env, path.join(stateDir, 'ferretdb'), port);
  }

  get url(): string {
    return `mongodb://127.0.0.1:${this.port}`;
  }

  /**
   * SIGKILLs the server and, after `downMs`, starts it again with the same command line on the same
   * data (the script's `start` would wipe it). The new process is written to the script's pid file, so
   * `ferretdb.sh stop` stops it.
   */
  async crashAndRestart(downMs: number): Promise<void> {
    const pidFile = path.join(this.stateDir, 'pid');
    const pid = this.pid();
    const argv = fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').filter(Boolean);
    process.kill(pid, 'SIGKILL');
    while (isAlive(pid)) await new Promise((resolve) => setTimeout(resolve, 20));
    await new Promise((resolve) => setTimeout(resolve, downMs));
    const log = fs.openSync(path.join(this.stateDir, 'server.log'), 'a');
    const child = spawn(argv[0]!, argv.slice(1), { detached: true, stdio: ['ignore', log, log] });
    fs.closeSync(log);
    child.unref();
    fs.writeFileSync(pidFile, String(child.pid));
    await untilListening(this.port, 30_000);
  }

  /** Stops the server answering (SIGSTOP): connections stay open, nothing comes back on them. */
  freeze(): void {
    process.kill(this.pid(), 'SIGSTOP');
  }

  /** Lets a frozen server answer again (SIGCONT). */
  thaw(): void {
    process.kill(this.pid(), 'SIGCONT');
  }

  private pid(): number {
    return Number(fs.readFileSync(path.join(this.stateDir, 'pid'), 'utf8').trim());
  }

  dispose(): void {
    try {
      runScript('ferretdb.sh', 'stop', this.env);
    } catch {
      // already stopped
    }
  }
}

/** Whether the process exists and is not a zombie waiting for a parent that may never reap it. */
function isAlive(pid: number): boolean {
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2)[0] !== 'Z';
  } catch {
    return false;
  }
}

async function untilListening(port: number, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const open = await new Promise<boolean>((resolve) => {
      const socket = net.connect(port, '127.0.0.1');
      socket.once('connect', () => {
        socket.destroy();
        resolve(true);
      });
      socket.once('error', () => resolve(false));
    });
    if (open) return;
    if (Date.now() > deadline) throw new Error(`nothing listens on 127.0.0.1:${port} after ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}
