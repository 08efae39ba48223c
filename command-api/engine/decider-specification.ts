/**
 * Given/when/then over a decider, with Emmett's `DeciderSpecification` (test-only): given events,
 * when a command, then the events it decides, nothing, or an error. The caller's answer is no event:
 * a refusal (a result `{ kind: 'refused' }`) is thrown as `Refused`, so `thenThrows` can name it.
 *
 * Emmett matches expected events as subsets, and cannot compare a null member; both sides are compared
 * with null written as a marker, so an expected null must be a null.
 */
import { DeciderSpecification } from '@event-driven-io/emmett';
import type { Aggregate, AnyEvent, Decision } from './aggregate-writer';

export interface RefusalResult {
  kind: 'refused';
  status: number;
  error: string;
  message: string;
}

export class Refused extends Error {
  override readonly name = 'Refused';
  constructor(readonly refusal: RefusalResult) {
    super(`${refusal.status} ${refusal.error}: ${refusal.message}`);
  }
}

/** `thenThrows` check: refused with this error code (and status). */
export const refusedWith =
  (error: string, status?: number) =>
  (thrown: Error): boolean =>
    thrown instanceof Refused &&
    thrown.refusal.error === error &&
    (status === undefined || thrown.refusal.status === status);

const NULL = '<null>';

function comparable<E>(event: E): E {
  return JSON.parse(JSON.stringify(event, (_key, value) => (value === null ? NULL : value)));
}

export function deciderSpecification<S, E extends AnyEvent, C>(
  aggregate: Aggregate<S, E>,
  decide: (state: S, command: C) => Decision<unknown, E>,
) {
  const spec = DeciderSpecification.for<C, E, S>({
    decide: (command, state) => {
      const { events, result } = decide(state, command);
      if ((result as { kind?: unknown } | null)?.kind === 'refused')
        throw new Refused(result as RefusalResult);
      return events.map(({ type, data }) => comparable({ type, data } as E));
    },
    evolve: (state, event) => aggregate.evolve(state, event),
    initialState: () => aggregate.initial(),
  });
  return (given: E[]) => ({
    when: (command: C) => {
      const when = spec(given).when(command);
      return {
        // biome-ignore lint/suspicious/noThenProperty: Emmett's given/when/then, not a thenable (never awaited)
        then: (expected: E[]) => when.then(expected.map(comparable)),
        thenNothingHappened: () => when.thenNothingHappened(),
        thenThrows: when.thenThrows,
      };
    },
  });
}
