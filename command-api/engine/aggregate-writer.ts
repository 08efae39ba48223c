/**
 * Runs commands against one stream's state with optimistic concurrency, in group commits.
 *
 * Commands for the same stream queue up while an append is in flight; the next round decides all of
 * them one after the other against the evolving state and appends their events in one append with the
 * expected revision. So a busy tenant costs one append per round, not per request, and decisions see
 * every earlier decision (trial caps and chains hold exactly). The cached state is used without
 * re-reading the stream; when another process appended first, the conditional append fails and the
 * round reloads the state and decides again.
 */
import { randomUUID } from 'node:crypto';
import { type EventStore, type NewEvent, WrongExpectedVersionError } from '../../ports/event-store';
import { sleep } from '../../runtime/support/sleep';

/** What a command decided: the events to append (maybe none) and what to tell the caller. */
export interface Decision<R> {
  events: NewEvent[];
  result: R;
}

export interface Aggregate<S> {
  initial(): S;
  /** Applies one event to the state in place (commands never see a half-applied decision). */
  evolve(state: S, event: { type: string; data: unknown }): void;
}

/** A decided command, once its events are durable. */
export type Committed<R> = R & {
  /** Global position of the round's last event (at or after this command's own events). */
  position: number | null;
  /** Ids of this command's events, in order. */
  eventIds: string[];
};

type Command<S, R> = (state: Readonly<S>) => Promise<Decision<R>> | Decision<R>;

interface Pending<S> {
  command: Command<S, unknown>;
  resolve(value: Committed<unknown>): void;
  reject(error: unknown): void;
}

interface Entry<S> {
  state: S;
  revision: number;
  queue: Pending<S>[];
  running: boolean;
}

export class AggregateWriter<S> {
  private readonly entries = new Map<string, Entry<S>>();

  constructor(
    private readonly eventStore: EventStore,
    private readonly aggregate: Aggregate<S>,
    private readonly options: { maxCached?: number; maxConflicts?: number } = {},
  ) {}

  execute<R>(stream: string, command: Command<S, R>): Promise<Committed<R>> {
    let entry = this.entries.get(stream);
    if (!entry) {
      entry = { state: this.aggregate.initial(), revision: -1, queue: [], running: false };
      this.entries.set(stream, entry);
      this.evictIfFull();
    }
    const pending = new Promise<Committed<R>>((resolve, reject) => {
      entry.queue.push({
        command: command as Command<S, unknown>,
        resolve: resolve as Pending<S>['resolve'],
        reject,
      });
    });
    if (!entry.running) void this.drain(stream, entry);
    return pending;
  }

  private async drain(stream: string, entry: Entry<S>): Promise<void> {
    entry.running = true;
    try {
      while (entry.queue.length > 0) {
        const round = entry.queue.splice(0);
        await this.runRound(stream, entry, round);
      }
    } finally {
      entry.running = false;
    }
  }

  private async runRound(stream: string, entry: Entry<S>, round: Pending<S>[]): Promise<void> {
    for (let attempt = 0; ; attempt++) {
      try {
        // A warm entry is trusted without reading the stream: the append below is conditional on its
        // revision, so if anyone else appended meanwhile it fails and the round reloads and decides anew.
        const warm = entry.revision >= 0;
        if (!warm) await this.catchUp(stream, entry);
        const decided = await this.decideAll(entry, round);
        if (!decided) return;
        const { events, outcomes } = decided;
        // Refusals append nothing, so no conditional append vouches for the state they were decided
        // on: check it is still the stream's, and decide again on the newer one if not.
        if (
          events.length === 0 &&
          warm &&
          attempt < this.maxConflicts &&
          (await this.caughtUpWithNews(stream, entry))
        )
          continue;
        let position: number | null = null;
        if (events.length > 0) {
          const expectedRevision = entry.revision < 0 ? 'no-stream' : entry.revision;
          const result = await this.eventStore.append(stream, events, { expectedRevision });
          entry.revision = result.nextRevision;
          position = result.position;
        }
        for (const { pending, result, eventIds } of outcomes) {
          pending.resolve({ ...(result as object), position, eventIds });
        }
        return;
      } catch (error) {
        // The state may hold decided but unwritten events: forget it and reload from the store.
        entry.state = this.aggregate.initial();
        entry.revision = -1;
        // Someone else (another command-api process) wrote to the stream: decide anew on the reloaded
        // state, after a short random pause so that two busy writers stop colliding in lockstep.
        if (error instanceof WrongExpectedVersionError && attempt < this.maxConflicts) {
          await sleep(Math.random() * Math.min(50, 2 ** attempt));
          continue;
        }
        for (const pending of round) pending.reject(error);
        return;
      }
    }
  }

  /**
   * Decides each command against the state left by the ones before it, evolving the cached state in
   * place (a failed append discards it). A command that throws is answered with its error and leaves
   * no events. Returns null when every command failed.
   */
  private async decideAll(entry: Entry<S>, round: Pending<S>[]) {
    const state = entry.state;
    const events: NewEvent[] = [];
    const outcomes: Array<{ pending: Pending<S>; result: unknown; eventIds: string[] }> = [];
    for (const pending of round) {
      let decision: Decision<unknown>;
      try {
        decision = await pending.command(state);
      } catch (error) {
        pending.reject(error);
        continue;
      }
      const withIds = decision.events.map((event) => ({ ...event, id: event.id ?? randomUUID() }));
      for (const event of withIds) this.aggregate.evolve(state, event);
      events.push(...withIds);
      outcomes.push({ pending, result: decision.result, eventIds: withIds.map((event) => event.id) });
    }
    return outcomes.length > 0 ? { events, outcomes } : null;
  }

  /** Catches up; true when the stream had events the cached state had not seen. */
  private get maxConflicts(): number {
    return this.options.maxConflicts ?? 10;
  }

  private async caughtUpWithNews(stream: string, entry: Entry<S>): Promise<boolean> {
    const before = entry.revision;
    await this.catchUp(stream, entry);
    return entry.revision !== before;
  }

  /** Applies the stream's events after the cached revision (all of them for a cold entry). */
  private async catchUp(stream: string, entry: Entry<S>): Promise<void> {
    for await (const event of this.eventStore.readStream(stream, { fromRevision: entry.revision + 1 })) {
      this.aggregate.evolve(entry.state, event);
      entry.revision = event.revision;
    }
  }

  private evictIfFull(): void {
    const max = this.options.maxCached ?? 10_000;
    for (const [stream, entry] of this.entries) {
      if (this.entries.size <= max) return;
      if (!entry.running && entry.queue.length === 0) this.entries.delete(stream);
    }
  }
}
