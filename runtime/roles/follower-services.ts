import type { Logger } from 'pino';
import { logOfEvent } from '../../domain/log';
import type { WitnessCosigned } from '../../event-schemas';
import type { RecordedEvent } from '../../ports/event-store';
import { projections } from '../../projectors';
import { ensureTestLog } from '../../projectors/log/log-directory';
import { LogFollower } from '../../projectors/log/log-follower';
import type { Config } from '../config/config';
import type { ProcessRole } from '../core/services';
import { openServerKeyring, type ServerKeyring } from '../keys/keyring';
import { type OpenedReadStore, openEventStore, openReadStore, readStoreLocation } from '../stores/stores';
import { createMetrics } from '../support/metrics';
import { type ComposedServices, composeServices } from '../wiring/compose-services';
import { remoteWaitsOn, StoreHeadGate } from '../wiring/remote-waits';

export interface FollowerServices extends ComposedServices {
  read: OpenedReadStore;
  keyring: ServerKeyring;
  /** Stops the follower and closes the stores and the keyring. */
  close(): Promise<void>;
}

/**
 * The services of a process that serves the API but does not sequence (command-api, read-api,
 * dispatcher, platform): the log from a follower of the sequencer's events, read-your-write from what
 * the projectors and the dispatcher store (remote-waits.ts). The platform both appends and serves its
 * own reads: its writes are acknowledged as the command API's, its reads wait as the read API's.
 */
export async function startFollowerServices(
  role: Exclude<ProcessRole, 'all' | 'projectors'>,
  config: Config,
  logger: Logger,
): Promise<FollowerServices> {
  const metrics = createMetrics();
  const keyring = await openServerKeyring(config.dataDir, config.logOrigin);
  const events = await openEventStore(config, {
    follower: true,
    otherProcessesAppend: true,
    writerThread: config.eventWriterThread,
  });
  const read = await openReadStore(readStoreLocation(config), logger);
  const waits = remoteWaitsOn(read.store);
  // Read-your-write: the command API acknowledges without waiting for the read models (beyond a
  // bounded backlog); the read API makes its reads wait for them instead.
  const commands = role === 'command-api' || role === 'platform';
  const readGate =
    role === 'read-api' || role === 'platform'
      ? new StoreHeadGate(events.store, waits, projections, config.integrationTimeoutMs)
      : undefined;
  // Creates the test log on a first start, if no other process has (before this process admits).
  if (commands) await ensureTestLog(events.store, keyring);
  let refreshCosignatures: (event: RecordedEvent) => void = () => undefined;
  const follower = new LogFollower({
    eventStore: events.store,
    verifierKeys: [keyring.logSigner.verifierKey, ...keyring.retiredLogVerifierKeys],
    logger,
    onCosigned: (event) => refreshCosignatures(event),
  });
  const composed = composeServices({
    config,
    logger,
    metrics,
    clock: () => new Date(),
    keyring,
    eventStore: events.store,
    readStore: read.store,
    logSource: follower,
    logs: follower,
    awaitProjections: (position, eventTypes) => waits.awaitProjections(position, eventTypes),
    ...(commands
      ? { readYourWrite: (position, eventTypes) => waits.boundBacklog(position, eventTypes) }
      : {}),
    ...(readGate ? { readGate } : {}),
    awaitDeliveryQueue: (position, tenantId) => waits.awaitDeliveryQueue(position, tenantId),
    bindings: { event_store: events.binding, read_store: read.binding },
    role,
  });
  // A cosignature recorded through another process: its log reloads the latest head's once its read
  // model has it (a log this process does not serve yet loads them when it first serves it).
  refreshCosignatures = (event) => {
    const { tree_size: size } = event.data as WitnessCosigned;
    const log = composed.logs.get(logOfEvent(event.data));
    if (!log) return;
    waits
      .awaitProjections(event.position, ['WitnessCosigned'])
      .then(() => log.treeHeadAt(size))
      .catch((error: unknown) => logger.warn({ err: error }, 'could not refresh witness cosignatures'));
  };
  await follower.start();
  await composed.log.start();
  return {
    ...composed,
    read,
    keyring,
    async close() {
      await composed.stop();
      await waits.close();
      await follower.stop();
      await events.store.close();
      await read.store.close();
      keyring.release();
    },
  };
}
