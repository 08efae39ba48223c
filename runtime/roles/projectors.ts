import type { Logger } from 'pino';
import { SHARED_LOG_NAME } from '../../domain/log';
import { projections } from '../../projectors';
import { BUS_FORWARDER, BusForwarder } from '../../projectors/engine/bus-forwarder';
import { ProjectionSupervisor } from '../../projectors/engine/supervisor';
import { LeasedSequencer } from '../../projectors/log/leased-sequencer';
import { LogAnchorer } from '../../projectors/log/log-anchorer';
import { ensureTestLog } from '../../projectors/log/log-directory';
import type { Config } from '../config/config';
import type { LeaseState } from '../core/services';
import { listen } from '../http/listen';
import { openServerKeyring } from '../keys/keyring';
import { openBus, openEventStore, openReadStore, readStoreLocation } from '../stores/stores';
import { createMetrics } from '../support/metrics';
import { createOpsApp } from '../wiring/http-app';
import { httpBanner, type RunningRole, runRole } from './role-process';

/**
 * The sequencer and projectors process: the Merkle sequencer, every read-model projector and (with
 * Kafka) the forwarder that publishes committed events to the bus. Run two or more: each of these is
 * a single writer under a lease, so one instance writes and the others stand by to take over.
 */
export async function startProjectorsRole(config: Config, logger: Logger): Promise<RunningRole> {
  const metrics = createMetrics();

  const keyring = await openServerKeyring(config.dataDir, config.logOrigin);
  // Its sequencer appends tree heads, but its reads follow the command API's appends.
  const events = await openEventStore(config, {
    follower: true,
    otherProcessesAppend: true,
    writerThread: config.eventWriterThread,
  });
  const read = await openReadStore(readStoreLocation(config), logger);
  const eventStore = events.store;
  const readStore = read.store;
  const leases = read.leases;
  const ttlMs = config.leaseTtlMs;
  // Creates the test log on a first start, if no other process has.
  await ensureTestLog(eventStore, keyring);
  // A lease per log: two of these processes split the logs between them (leased-sequencer.ts).
  const sequencer = new LeasedSequencer({
    leases,
    ttlMs,
    logger,
    onRoleChange: (writing) => metrics.sequencerIsWriter.set(writing.length > 0 ? 1 : 0),
    sequencer: {
      eventStore,
      signer: keyring.logSigner,
      retiredVerifierKeys: keyring.retiredLogVerifierKeys,
      signerOf: (name) => keyring.logSignerOf(name),
      logger,
      metrics,
    },
  });
  await sequencer.start();
  // Anchors the other logs in the shared log while this process holds the shared log's lease.
  const anchorer = new LogAnchorer({
    eventStore,
    logs: sequencer.sequencer,
    writesShared: () => sequencer.writing().includes(SHARED_LOG_NAME),
    intervalMs: config.anchorIntervalMs,
    logger,
    metrics,
  });
  anchorer.start();
  const supervisor = new ProjectionSupervisor({
    projections,
    eventStore,
    readStore,
    metrics,
    logger,
    leases,
    leaseTtlMs: ttlMs,
  });
  await supervisor.start();
  const bus = await openBus(config, eventStore, readStore, { logger, metrics });
  const forwarder = bus.needsForwarder
    ? new BusForwarder({
        eventStore,
        readStore,
        bus: bus.bus,
        logger,
        metrics,
        singleWriter: { leases, ttlMs },
      })
    : null;
  await forwarder?.start();
  const bindings = { event_store: events.binding, read_store: read.binding, bus: bus.binding };
  const state = (writing: boolean): LeaseState => (writing ? 'writer' : 'standby');
  // Each single writer's lease by its name: each log's, the forwarder's, each projector generation's.
  const leaseStates = () => {
    const states: Record<string, LeaseState> = { ...sequencer.leaseStates() };
    if (forwarder) states[BUS_FORWARDER] = state(forwarder.isWriter);
    for (const { name } of projections) {
      const runner = supervisor.runner(name);
      if (runner) states[runner.checkpoint] = state(runner.isWriter);
    }
    return states;
  };
  const http = await listen(
    createOpsApp({
      config,
      logger,
      metrics,
      eventStore,
      readStore,
      bindings,
      role: 'projectors',
      leaseStates,
    }),
    config,
  );
  return {
    banner: httpBanner(config, http.url, http.port),
    async close() {
      await http.close();
      await forwarder?.stop();
      await bus.bus.close();
      await anchorer.stop();
      await sequencer.stop();
      await supervisor.stop();
      await eventStore.close();
      await readStore.close();
      keyring.release();
    },
  };
}

if (require.main === module) runRole('sequencer and projectors', startProjectorsRole);
