/**
 * The production topology as separate processes on one machine, for end-to-end tests: the embedded
 * SQLite event store file shared by every process, read models in MongoDB (FerretDB), the bus on
 * Kafka. Two sequencer/projector processes (one writes, one stands by), a dispatcher, a read API and two
 * command APIs. Each role keeps its port, so it can be killed and started again where clients expect it.
 */
import path from 'node:path';
import { LOG_STREAM } from '../../projectors/log/log-sequencer';
import { freePort } from './children';
import { GovClient } from './governance-client';
import {
  health,
  isRunning,
  killHard,
  lastOutput,
  type ServiceProcess,
  startServiceProcess,
  until,
  waitHealthy,
} from './service-processes';
import { ROLE_ENTRY, type RoleName, type TopologyStores, topologyEnvironment } from './topology-environment';

export type { RoleName } from './topology-environment';

export interface TopologyOptions extends TopologyStores {
  /** Where each role's whole output is appended (`<role>.log`, across restarts). */
  logDir?: string;
  /** The roles to start besides the two projectors processes (default: every role). */
  roles?: readonly RoleName[];
  /** Settings every role is given besides the topology's own (GOV_ANCHOR_INTERVAL_MS, …). */
  env?: NodeJS.ProcessEnv;
}

export class Topology {
  private readonly processes = new Map<RoleName, ServiceProcess>();

  private constructor(
    /** Every role's environment: what an operator's `gov` on this machine is configured with too. */
    readonly env: NodeJS.ProcessEnv,
    private readonly ports: Record<RoleName, number>,
    private readonly logDir?: string,
  ) {}

  /** Starts every role: the sequencers first (the others follow a log that has a signed head). */
  static async start(options: TopologyOptions): Promise<Topology> {
    const ports = {} as Record<RoleName, number>;
    for (const role of Object.keys(ROLE_ENTRY) as RoleName[]) ports[role] = await freePort();
    const topology = new Topology(
      { ...topologyEnvironment(options, ports), ...options.env },
      ports,
      options.logDir,
    );
    await topology.startRoles(['projectors-a', 'projectors-b']);
    await topology.startRoles(options.roles ?? ['dispatcher', 'read-api', 'command-api-a', 'command-api-b']);
    await until(
      async () => (await topology.writingSequencer()) !== null,
      'a sequencer to take the lease',
      20_000,
    );
    return topology;
  }

  /** A client of the role, at its fixed port (it answers only while the role runs). */
  client(role: RoleName): GovClient {
    return new GovClient(`http://127.0.0.1:${this.ports[role]}`);
  }

  isRunning(role: RoleName): boolean {
    const process = this.processes.get(role);
    return process !== undefined && isRunning(process);
  }

  /** The projectors process whose sequencer holds the `merkle-log` lease (its /health), or null while none does. */
  async writingSequencer(): Promise<RoleName | null> {
    for (const role of ['projectors-a', 'projectors-b'] as const)
      if (this.isRunning(role) && (await health(this.client(role).url))?.leases[LOG_STREAM] === 'writer')
        return role;
    return null;
  }

  /** SIGKILLs the roles (a lease they held lapses after GOV_LEASE_TTL_MS); resolves once they ended. */
  async kill(roles: readonly RoleName[]): Promise<void> {
    await Promise.all(roles.map((role) => killHard(this.processes.get(role)!)));
  }

  /** SIGKILLs the role and starts it again on its port; resolves once it is healthy. */
  async killAndRestart(role: RoleName): Promise<void> {
    await killHard(this.processes.get(role)!);
    await this.startRoles([role]);
  }

  async startRoles(roles: readonly RoleName[]): Promise<void> {
    for (const role of roles)
      this.processes.set(
        role,
        startServiceProcess(
          role,
          path.join('runtime/roles', `${ROLE_ENTRY[role]}.ts`),
          this.ports[role],
          this.env,
          this.logDir && path.join(this.logDir, `${role}.log`),
        ),
      );
    await Promise.all(roles.map((role) => waitHealthy(this.processes.get(role)!)));
  }

  /** The last output of every role, for a failure's message. */
  logs(): string {
    return [...this.processes.values()].map((process) => lastOutput(process, 2000)).join('\n');
  }

  async killAll(): Promise<void> {
    await Promise.all([...this.processes.values()].map(killHard));
  }
}
