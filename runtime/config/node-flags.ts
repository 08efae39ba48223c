/**
 * Node options the embedded server is started with: by `npm start`, by the Docker image and by the
 * benchmarks, so that what is measured is what runs (tests/server-node-flags.test.ts keeps the three
 * in step).
 *
 * `--single-threaded-gc`: V8 collects each isolate's garbage on that isolate's own thread, not also
 * on a pool of helper threads. The server already runs five JavaScript threads (HTTP and decisions,
 * validators, event writer, read models, deliveries), often on 2 cores; the helpers competed with
 * them for those cores, and a thread stopped for a scavenge waited for helpers the kernel had not
 * scheduled (pauses up to ~50 ms). At 64 connections on 2 vCPUs the server admits about a fifth more
 * per second with it, at about a sixth less CPU per admission.
 * On a machine with many more cores than the server has threads, parallel collection may win back.
 */
export const SERVER_NODE_FLAGS: readonly string[] = ['--single-threaded-gc'];
