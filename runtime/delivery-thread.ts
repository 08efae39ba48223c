/**
 * The delivery worker on its own thread (the embedded server's default): HTTP attempts, signatures
 * and delivery-log writes use the second core instead of the admission path's. It opens its own
 * connection to the read store; the main thread wakes it, renders what needs the Merkle log, and
 * turns its attempt reports into metrics.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { DeliveryWorker } from '../projectors/dispatcher/delivery-worker';
import type { DeliveryView } from '../projectors/dispatcher/dispatcher-projection';
import { TargetGuard } from '../projectors/dispatcher/target-guard';
import type { ThreadReport, ThreadRequest, ThreadSettings } from './delivery-thread-protocol';
import { createLogger } from './logger';
import { openReadStore } from './stores';

const settings = workerData as ThreadSettings;
const port = parentPort!;
const renders = new Map<number, { resolve(body: string): void; reject(error: Error): void }>();
let nextRender = 0;
const send = (report: ThreadReport) => port.postMessage(report);

async function main(): Promise<void> {
  const { store: readStore } = await openReadStore(settings.readStore);

  const worker = new DeliveryWorker({
    readStore,
    collections: settings.collections,
    guard: new TargetGuard({ allow: settings.allow }),
    secretKey: Buffer.from(settings.secretKey),
    clock: () => new Date(),
    logger: createLogger(settings.logLevel),
    timeoutMs: settings.timeoutMs,
    render: (delivery: DeliveryView) =>
      new Promise<string>((resolve, reject) => {
        const id = nextRender++;
        renders.set(id, { resolve, reject });
        send({ kind: 'render', id, delivery });
      }),
    onAttempt: (entry, attempt) =>
      send({ kind: 'attempt', status: entry.status, queued_at: entry.queued_at, attempt }),
  });

  port.on('message', (request: ThreadRequest) => {
    switch (request.kind) {
      case 'wake':
        worker.wake();
        return;
      case 'run-once':
        void worker.runOnce().then(() => send({ kind: 'ran', id: request.id }));
        return;
      case 'rendered': {
        const waiting = renders.get(request.id);
        renders.delete(request.id);
        if (request.error !== undefined) waiting?.reject(new Error(request.error));
        else waiting?.resolve(request.body!);
        return;
      }
      case 'stop':
        void worker
          .stop()
          .then(() => readStore.close())
          .then(() => send({ kind: 'stopped' }));
        return;
    }
  });

  await worker.start();
  send({ kind: 'started' });
}

// A failure (the read store cannot be opened) is an unhandled rejection: it ends the thread with an
// 'error' event, which the main thread reports and which fails the dispatcher's start.
void main();
