import type { Logger } from 'pino';
import { AggregateWriter } from '../../command-api/engine/aggregate-writer';
import { type LogBinding, UnknownLogError } from '../../command-api/governance/evidence/submit-evidence';
import type { GovernanceServices } from '../../command-api/governance/services';
import { followKeyChanges } from '../../command-api/governance/tenants/key-changes';
import { tenantAggregate } from '../../command-api/governance/tenants/tenant-state';
import { witnessAggregate } from '../../command-api/governance/witness/witness-cosignature';
import { authorityNodeIdOf } from '../../domain/governance/envelope';
import { createLocalValidators } from '../../domain/governance/validators';
import { logUrlOf, SHARED_LOG_NAME } from '../../domain/log';
import type { EventStore } from '../../ports/event-store';
import type { IntegratedLeaf, LogDirectory, LogName, LogSource } from '../../ports/log';
import type { ReadStore } from '../../ports/read-store';
import { ProjectionCatalog } from '../../projectors/engine/catalog';
import { DELIVERY_QUEUE_COLLECTIONS } from '../../projectors/webhooks/delivery-queue-projection';
import { TargetGuard } from '../../projectors/webhooks/target-guard';
import type { ReadBarrier, ReadGate } from '../../read-api/engine/read-barrier';
import { ReadModels } from '../../read-api/engine/read-models';
import type { Config } from '../config/config';
import type { CoreServices } from '../core/services';
import { RequestRateLimiter } from '../http/rate-limit';
import { RecentKeys } from '../http/recent-keys';
import type { Keyring } from '../keys/keyring';
import type { Metrics } from '../support/metrics';
import { ValidatorThread } from '../threads/thread-validators';
import { SequencedLog, SequencedLogs } from './sequenced-log';

export interface ServiceParts {
  config: Config;
  logger: Logger;
  metrics: Metrics;
  clock: () => Date;
  keyring: Keyring;
  /** Validating (every event checked against its schema before it is appended). */
  eventStore: EventStore;
  readStore: ReadStore;
  /** The shared log: the sequencer itself, or a follower of its events. */
  logSource: LogSource;
  /** Every log the process knows (the sequencer, or the follower), the shared one included. */
  logs: LogDirectory;
  awaitProjections: CoreServices['awaitProjections'];
  /**
   * Read-your-write without each write waiting for the read models. Where this process serves the
   * reads of its own projections (embedded): `readBarrier`, acknowledged writes are noted and reads
   * wait for them. Where other processes acknowledge the writes or serve the reads (the topology):
   * `readYourWrite` on the command side, `readGate` on the read side. Without them, writes wait
   * (`awaitProjections`).
   */
  readBarrier?: ReadBarrier;
  readYourWrite?: CoreServices['readYourWrite'];
  readGate?: ReadGate;
  awaitDeliveryQueue: GovernanceServices['webhooks']['awaitDeliveryQueue'];
  bindings: CoreServices['bindings'];
  role: CoreServices['role'];
}

export interface ComposedServices {
  /** The engine every context shares (the platform's services are made from it). */
  core: CoreServices;
  /** The governance context's services: the shared core and its own parts. */
  services: GovernanceServices;
  /** The served shared log; `start` it before serving (loads the latest head's cosignatures). */
  log: SequencedLog;
  /** Every served log by name, the shared one being `log` (the others start when first asked for). */
  logs: SequencedLogs;
  /** Stops what the services run beside the process's main thread (the validator thread). */
  stop(): Promise<void>;
}

/**
 * The shared core, and the governance context's services on it, from the parts a deployment chose
 * (embedded or one topology role). A second context takes the same core with its own parts.
 */
export function composeServices(parts: ServiceParts): ComposedServices {
  const { config, keyring, readStore, eventStore, logSource } = parts;
  const directory = parts.logs;
  const catalog = new ProjectionCatalog(readStore, 1000);
  const barrier = parts.readBarrier ?? null;
  const readModels = new ReadModels({ readStore, catalog }, barrier ?? parts.readGate ?? null);
  const sequenced = (name: string, source: LogSource) =>
    new SequencedLog(source, readModels, eventStore, {
      log: name,
      awaitTreeHeads: (position) => parts.awaitProjections(position, ['TreeHeadSigned']),
      timeoutMs: config.integrationTimeoutMs,
    });
  const log = sequenced(SHARED_LOG_NAME, logSource);
  const logs = new SequencedLogs(directory, sequenced, log);
  const recentKeys = new RecentKeys();
  // Where admissions are answered (the evidence fast path's key lookups).
  const keyChanges =
    parts.role === 'all' || parts.role === 'command-api'
      ? followKeyChanges(eventStore, recentKeys, parts.logger)
      : null;
  const validatorThread = config.validatorThread
    ? ValidatorThread.start(keyring.validators, keyring.authority.privateKey)
    : null;
  const core: CoreServices = {
    config,
    logger: parts.logger,
    metrics: parts.metrics,
    eventStore,
    readStore,
    catalog,
    readModels,
    clock: parts.clock,
    awaitProjections: parts.awaitProjections,
    readYourWrite: barrier
      ? (position, eventTypes) => barrier.acknowledge(position, eventTypes)
      : (parts.readYourWrite ?? parts.awaitProjections),
    log,
    logs,
    publishedKeys: keyring.published,
    awaitLeaf: (eventId, name) =>
      name === SHARED_LOG_NAME ? logSource.waitForEvent(eventId) : awaitLeafOf(directory, name, eventId),
    bindings: parts.bindings,
    role: parts.role,
    // The embedded server's single writers are alone and take no lease; the roles composed here run none.
    leaseStates: () => ({}),
  };
  const services: GovernanceServices = {
    ...core,
    tenants: new AggregateWriter(eventStore, tenantAggregate),
    witnesses: new AggregateWriter(eventStore, witnessAggregate, { consistency: 'any' }),
    admission: {
      validators: createLocalValidators(keyring.validators),
      validatorKeys: keyring.validators,
      authority: { ...keyring.authority, nodeId: authorityNodeIdOf(keyring.authority.publicKey) },
      // The votes, the node's signature and the leaf hash in one message to the validator thread.
      ...(validatorThread ? { certify: validatorThread.certify } : {}),
      // Read when asked: the embedded server learns its public URL once it listens (port 0).
      logBinding: logBindings(directory, () => services.config.publicUrl),
      learnLogs: () => directory.caughtUp(),
    },
    requestLimiter: new RequestRateLimiter(parts.clock),
    recentKeys,
    webhooks: {
      guard: new TargetGuard({ allow: config.webhookAllow }),
      secretKey: keyring.webhookSecretKey,
      collections: DELIVERY_QUEUE_COLLECTIONS,
      awaitDeliveryQueue: parts.awaitDeliveryQueue,
    },
  };
  return {
    core,
    services,
    log,
    logs,
    stop: async () => {
      await keyChanges?.stop();
      await validatorThread?.close();
    },
  };
}

/** A leaf of a log other than the shared one: its log may have been created a moment ago elsewhere. */
async function awaitLeafOf(logs: LogDirectory, name: LogName, eventId: string): Promise<IntegratedLeaf> {
  let source = logs.source(name);
  if (!source) {
    await logs.caughtUp();
    source = logs.source(name);
  }
  if (!source) throw new Error(`no log '${name}' in the event store: its admission cannot be integrated`);
  return source.waitForEvent(eventId);
}

/** Each log's envelope binding: its verifier key and URL, made once per log and public URL. */
function logBindings(logs: LogDirectory, publicUrl: () => string): (name: LogName) => LogBinding {
  const made = new Map<LogName, LogBinding>();
  return (name) => {
    const url = logUrlOf(publicUrl(), name);
    const known = made.get(name);
    if (known?.log_url === url) return known;
    const log = logs.list().find((description) => description.name === name);
    if (!log) throw new UnknownLogError(name);
    const binding = { log_id: log.verifierKey, log_url: url };
    made.set(name, binding);
    return binding;
  };
}
