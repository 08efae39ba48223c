/**
 * The one way commands run: against one stream's state, with optimistic concurrency, in group commits.
 *
 * Commands for the same stream queue up while an append is in flight; the next round decides all of
 * them one after the other against the evolving state and appends their events in one append with the
 * expected revision. So a busy tenant costs one append per round, not per request, and decisions see
 * every earlier decision (trial caps and chains hold exactly). The cached state is used without
 * re-reading the stream; when another process appended first, the conditional append fails and the
 * round catches up and decides again.
 *
 * A decision is synchronous and does no I/O, so the queue only ever waits for appends: work that needs
 * I/O (a validator round, a DNS check) is done by the handler before it hands its command in, on a
 * state read with `state()`, and the decision checks that what it was based on still holds.
 */
import { randomUUID } from 'node:crypto';
import { type EventStore, type NewEvent, WrongExpectedVersionError } from '../../ports/event-store';
import { sleep } from '../../runtime/support/sleep';

/** An event as deciders and `evolve` see it: `type` tied to `data` when E is a union of such pairs. */
export interface AnyEvent {
  type: string;
  data: unknown;
}

/** An event a decision appends: the event and its metadata (the store assigns the rest). */
export type NewEventOf<E extends AnyEvent> = E & Omit<NewEvent, 'type' | 'data'>;

/** What a command decided: the events to append (maybe none) and what to tell the caller. */
export interface Decision<R, E extends AnyEvent = AnyEvent> {
  events: NewEventOf<E>[];
  result: R;
}

export interface Aggregate<S, E extends AnyEvent = AnyEvent> {
  initial(): S;
  /** The state after `event`; the given state is left as it was (decisions may still hold it). */
  evolve(state: S, event: E): S;
}

/** A decided command, once its events are durable. */
export type Committed<R> = R & {
  /** Global position of the round's last event (at or after this command's own events). */
  position: number | null;
  /** Ids of this command's events, in order. */
  eventIds: string[];
};

/** A command: decides against the stream's state, synchronously and without I/O. */
export type Decide<S, R, E extends AnyEvent = AnyEvent> = (state: S) => Decision<R, E>;

export interface CommandOptions {
  /**
   * The command starts the stream (expected revision `no-stream`): it is decided on the initial state
   * without reading the stream, and when the stream exists it fails with WrongExpectedVersionError.
   */
  create?: boolean;
}

export interface WriterOptions {
  maxCached?: number;
  maxConflicts?: number;
  /**
   * `stream` (the default): decisions see the stream's state and append at its revision. `any`: the
   * stream's past decides nothing (its events are made idempotent by their ids instead), so nothing
   * is read, every decision sees the initial state, and appends expect any revision.
   */
  consistency?: 'stream' | 'any';
}

interface Pending<S> {
  decide: Decide<S, unknown>;
  create: boolean;
  resolve(value: Committed<unknown>): void;
  reject(error: unknown): void;
}

interface Entry<S> {
  /** The state at `revision`: only ever replaced, together with `revision`, by what the store holds. */
  state: S;
  revision: number;
  /** The state may be used without reading the stream (true after a read or a successful append). */
  warm: boolean;
  queue: Pending<S>[];
  running: boolean;
}

const NOTHING: Decision<object> = { events: [], result: {} };

export class AggregateWriter<S, E extends AnyEvent = AnyEvent> {
  private readonly entries = new Map<string, Entry<S>>();

  constructor(
    private readonly eventStore: EventStore,
    private readonly aggregate: Aggregate<S, E>,
    private readonly options: WriterOptions = {},
  ) {}

  execute<R>(stream: string, decide: Decide<S, R, E>, options: CommandOptions = {}): Promise<Committed<R>> {
    let entry = this.entries.get(stream);
    if (!entry) {
      entry = { state: this.aggregate.initial(), revision: -1, warm: false, queue: [], running: false };
      this.entries.set(stream, entry);
      this.evictIfFull();
    }
    const pending = new Promise<Committed<R>>((resolve, reject) => {
      entry.queue.push({
        decide: decide as Decide<S, unknown>,
        create: options.create === true,
        resolve: resolve as Pending<S>['resolve'],
        reject,
      });
    });
    if (!entry.running) void this.drain(stream, entry);
    return pending;
  }

  /**
   * The newest state this writer knows of the stream (read from the store the first time), for the
   * I/O a command needs before it is decided. The decision sees the state as it is by then.
   */
  async state(stream: string): Promise<S> {
    for (;;) {
      const entry = this.entries.get(stream);
      if (entry?.warm || this.isStateless) return entry?.state ?? this.aggregate.initial();
      await this.execute(stream, () => NOTHING as Decision<object, E>);
      // Evicted in between (a full cache): read again.
    }
  }

  private get isStateless(): boolean {
    return this.options.consistency === 'any';
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
      // Only commands that start the stream: they need no read, the append's `no-stream` checks it.
      const unread = !entry.warm && !this.isStateless && round.every((pending) => pending.create);
      try {
        // A warm entry is trusted without reading the stream: the append below is conditional on its
        // revision, so if anyone else appended meanwhile it fails and the round catches up and decides anew.
        const warm = entry.warm;
        if (!warm && !unread && !this.isStateless) await this.catchUp(stream, entry);
        const decided = this.decideAll(stream, entry, round);
        if (!decided) return;
        const { events, outcomes, state } = decided;
        // Refusals append nothing, so no conditional append vouches for the state they were decided
        // on: check it is still the stream's, and decide again on the newer one if not.
        if (
          events.length === 0 &&
          warm &&
          !this.isStateless &&
          attempt < this.maxConflicts &&
          (await this.caughtUpWithNews(stream, entry))
        )
          continue;
        let position: number | null = null;
        if (events.length > 0) {
          const expectedRevision = this.isStateless
            ? 'any'
            : entry.revision < 0
              ? 'no-stream'
              : entry.revision;
          const result = await this.eventStore.append(stream, events, { expectedRevision });
          if (!this.isStateless) {
            entry.state = state;
            entry.revision = result.nextRevision;
            entry.warm = true;
          }
          position = result.position;
        }
        for (const { pending, result, eventIds } of outcomes) {
          pending.resolve({ ...(result as object), position, eventIds });
        }
        return;
      } catch (error) {
        // The cached state is still the one at its revision (decided events are kept apart until
        // appended), but the stream may have moved on: catch up before deciding again.
        entry.warm = false;
        // Someone else (another command-api process) wrote to the stream: decide anew on the newer
        // state, after a short random pause so that two busy writers stop colliding in lockstep. A
        // command that starts the stream fails as the store failed it.
        if (error instanceof WrongExpectedVersionError && !unread && attempt < this.maxConflicts) {
          await sleep(Math.random() * Math.min(50, 2 ** attempt));
          continue;
        }
        for (const pending of round) pending.reject(error);
        return;
      }
    }
  }

  /**
   * Decides each command against the state left by the ones before it. A command that throws is
   * answered with its error and leaves no events. Returns null when every command failed.
   */
  private decideAll(stream: string, entry: Entry<S>, round: Pending<S>[]) {
    let state = entry.state;
    const events: NewEventOf<E>[] = [];
    const outcomes: Array<{ pending: Pending<S>; result: unknown; eventIds: string[] }> = [];
    for (const pending of round) {
      let decision: Decision<unknown, E>;
      try {
        // A stream that exists (or will, with this round's events) cannot be started again.
        if (pending.create && (entry.revision >= 0 || events.length > 0))
          throw new WrongExpectedVersionError(
            stream,
            'no-stream',
            entry.revision >= 0 ? entry.revision : 'no-stream',
          );
        decision = pending.decide(state) as Decision<unknown, E>;
      } catch (error) {
        pending.reject(error);
        continue;
      }
      const withIds = decision.events.map((event) => ({ ...event, id: event.id ?? randomUUID() }));
      for (const event of withIds) state = this.aggregate.evolve(state, event);
      events.push(...withIds);
      outcomes.push({ pending, result: decision.result, eventIds: withIds.map((event) => event.id) });
    }
    return outcomes.length > 0 ? { events, outcomes, state } : null;
  }

  private get maxConflicts(): number {
    return this.options.maxConflicts ?? 10;
  }

  /** Catches up; true when the stream had events the cached state had not seen. */
  private async caughtUpWithNews(stream: string, entry: Entry<S>): Promise<boolean> {
    const before = entry.revision;
    await this.catchUp(stream, entry);
    return entry.revision !== before;
  }

  /** Applies the stream's events after the cached revision (all of them for a new entry). */
  private async catchUp(stream: string, entry: Entry<S>): Promise<void> {
    for await (const event of this.eventStore.readStream(stream, { fromRevision: entry.revision + 1 })) {
      // The store took only events valid against their schemas (ValidatingEventStore): `type` names `data`.
      entry.state = this.aggregate.evolve(entry.state, event as unknown as E);
      entry.revision = event.revision;
    }
    entry.warm = true;
  }

  private evictIfFull(): void {
    const max = this.options.maxCached ?? 10_000;
    for (const [stream, entry] of this.entries) {
      if (this.entries.size <= max) return;
      if (!entry.running && entry.queue.length === 0) this.entries.delete(stream);
    }
  }
}
