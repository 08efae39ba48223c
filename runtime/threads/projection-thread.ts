/**
 * The embedded server's read-model projectors on a thread of their own (GOV_PROJECTION_THREAD=1, the
 * default): reading events and writing the read models use the second core, not the admission path's.
 * The thread opens its own connections to the stores; the main thread reads the read models through
 * its own, and waits for read-your-write on the positions this thread reports.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { SqliteEventStore } from '../../adapters/sqlite/event-store';
import type { EventStore } from '../../ports/event-store';
import { projections } from '../../projectors';
import { ProjectionSupervisor } from '../../projectors/engine/supervisor';
import { openEventStore, openReadStore, readStoreLocation } from '../stores/stores';
import { createLogger } from '../support/logger';
import { createMetrics, type Metrics } from '../support/metrics';
import { niceThisThread } from '../support/thread-priority';
import {
  FORWARDED_METRICS,
  type MetricUpdate,
  type ProjectionThreadData,
  type ProjectionThreadReport,
  type ProjectionThreadRequest,
} from './projection-thread-protocol';

const { config } = workerData as ProjectionThreadData;
const port = parentPort!;
const send = (report: ProjectionThreadReport) => port.postMessage(report);

/** Progress of this turn, sent as one message when the turn ends. */
let applied: Record<string, number> = {};
let metricUpdates: MetricUpdate[] = [];
let progressScheduled = false;
function queueProgress(): void {
  if (progressScheduled) return;
  progressScheduled = true;
  setImmediate(() => {
    progressScheduled = false;
    send({ kind: 'progress', applied, metrics: metricUpdates });
    applied = {};
    metricUpdates = [];
  });
}

/** This thread's metrics, with the projector ones forwarded to the main thread's registry. */
function forwardingMetrics(): Metrics {
  const metrics = createMetrics(undefined, { defaults: false });
  for (const metric of FORWARDED_METRICS) {
    const forward =
      (operation: MetricUpdate['operation']) =>
      (labels: Record<string, string>, value = operation === 'inc' ? 1 : 0) => {
        metricUpdates.push({ metric, operation, labels, value });
        queueProgress();
      };
    Object.assign(metrics[metric], { inc: forward('inc'), set: forward('set') });
  }
  return metrics;
}

/**
 * The main thread wakes this one for its own appends (threaded-projections.ts: at most every 100 ms,
 * at once when someone waits). Polling the file only finds appends made by other processes (an
 * operator's `gov tenant tier`), which can wait as long; polling every 25 ms woke the thread between
 * the main thread's wakes and undid their batching.
 */
const FOREIGN_APPENDS_POLL_MS = 100;

async function openEvents(): Promise<{ store: EventStore; noteAppended(): void }> {
  if (config.eventStoreUrl) {
    // EventStoreDB pushes appends to its subscriptions: nothing to note.
    const opened = await openEventStore(config);
    return { store: opened.store, noteAppended: () => undefined };
  }
  // Only read here (appends go through the main thread's validating store).
  const store = new SqliteEventStore({
    file: config.eventStoreFile,
    maxEventBytes: config.maxEventBytes,
    follower: true,
    pollIntervalMs: FOREIGN_APPENDS_POLL_MS,
  });
  return { store, noteAppended: () => store.noteAppendedElsewhere() };
}

/**
 * The read models are off the admission path: a read waits for them at the read barrier, an admission
 * only once they lag 1,000 positions. On cores the admission path keeps busy, this thread yields to it
 * (in pairs at 64 connections with the wake interval of threaded-projections.ts: 2,992 -> 3,269,
 * 2,956 -> 3,059, 2,914 -> 2,944 admissions/s; the thread kept within its bound).
 */
const PROJECTION_THREAD_NICE = 5;

async function main(): Promise<void> {
  niceThisThread(PROJECTION_THREAD_NICE);
  const events = await openEvents();
  const logger = createLogger(config.logLevel);
  const read = await openReadStore(readStoreLocation(config), logger);
  const supervisor = new ProjectionSupervisor({
    projections,
    eventStore: events.store,
    readStore: read.store,
    metrics: forwardingMetrics(),
    logger,
    onApplied: (projectionName, position) => {
      applied[projectionName] = position;
      queueProgress();
    },
  });
  await supervisor.start();

  port.on('message', (request: ProjectionThreadRequest) => {
    switch (request.kind) {
      case 'appended':
        events.noteAppended();
        return;
      case 'catch-up':
        supervisor.catchUp().then(
          () => send({ kind: 'caught-up', id: request.id }),
          (error: unknown) => send({ kind: 'caught-up', id: request.id, error: String(error) }),
        );
        return;
      case 'stop':
        void supervisor
          .stop()
          .then(() => events.store.close())
          .then(() => read.store.close())
          .then(() => send({ kind: 'stopped' }));
        return;
    }
  });

  const positions: Record<string, number | null> = {};
  for (const projection of projections)
    positions[projection.name] = supervisor.runner(projection.name)?.appliedPosition ?? null;
  send({ kind: 'started', positions });
}

// A failure (a store cannot be opened) is an unhandled rejection: it ends the thread with an 'error'
// event, which the main thread reports.
void main();
