/**
 * Creating a log other than the shared one, and what the processes' directories of logs share. A log
 * exists once its `LogCreated` event is the first of stream `log-<name>`, appended with expected
 * revision no-stream: processes creating the same log at once create it once, and the others' appends
 * fail harmlessly. The directories themselves are the sequencer (log-sequencer.ts) and the follower
 * (log-follower.ts), which learn the logs from these events.
 */
import { logStreamOf, SHARED_LOG_NAME, TEST_LOG_NAME } from '../../domain/log';
import type { LogCreated } from '../../event-schemas';
import type { NoteSigner } from '../../merkle-core';
import { type EventStore, WrongExpectedVersionError } from '../../ports/event-store';
import type { LogDescription } from '../../ports/log';
import { SYSTEM_TENANT } from './log-writer';

/**
 * Appends `LogCreated` for `created` unless the log exists; true when this call created it. A log that
 * exists under another key is an error (its key file is not the one its events name).
 */
export async function ensureLogCreated(eventStore: EventStore, created: LogCreated): Promise<boolean> {
  const stream = logStreamOf(created.log);
  try {
    await eventStore.append(
      stream,
      [
        {
          type: 'LogCreated',
          data: created,
          tenant_id: created.tenant_id ?? SYSTEM_TENANT,
          correlation_id: `create-${stream}`,
          causation_id: null,
        },
      ],
      { expectedRevision: 'no-stream' },
    );
    return true;
  } catch (error) {
    if (!(error instanceof WrongExpectedVersionError)) throw error;
  }
  for await (const event of eventStore.readStream(stream, { maxCount: 1 })) {
    const existing = event.data as LogCreated;
    if (existing.verifier_key !== created.verifier_key)
      throw new Error(
        `log '${created.log}' was created with key ${existing.verifier_key}, but its key file holds ${created.verifier_key}: ` +
          'restore the keys folder (keys/logs/) from backup',
      );
  }
  return false;
}

/** The test-mode log's `LogCreated`, made at a first start (before any test-mode admission can be). */
export function ensureTestLog(
  eventStore: EventStore,
  keyring: { logSignerOf(name: string): NoteSigner },
): Promise<boolean> {
  const signer = keyring.logSignerOf(TEST_LOG_NAME);
  return ensureLogCreated(eventStore, {
    log: TEST_LOG_NAME,
    kind: 'test',
    origin: signer.name,
    verifier_key: signer.verifierKey,
    tenant_id: null,
  });
}

/** The description a `LogCreated` event gives. */
export function describedLog(data: LogCreated): LogDescription {
  return {
    name: data.log,
    kind: data.kind,
    origin: data.origin,
    verifierKey: data.verifier_key,
    tenantId: data.tenant_id,
  };
}

/** `LogDirectory.list()`'s order: the shared log first, then by name. */
export function byLogOrder(a: LogDescription, b: LogDescription): number {
  if (a.name === b.name) return 0;
  if (a.name === SHARED_LOG_NAME) return -1;
  if (b.name === SHARED_LOG_NAME) return 1;
  return a.name < b.name ? -1 : 1;
}
