/**
 * Properties of every tenant command over arbitrary sequences: evidence, executions, tier and policy
 * changes, key rotations and webhook commands, decided one after the other against the state folded
 * from all the events before them (as the AggregateWriter runs them), with a clock that jumps across
 * UTC days and the trial window. The limits are checked against the event log alone, not against the
 * aggregate.
 */
import fc from 'fast-check';
import { HOUR_MS, TIER_LIMITS, type Tier, utcDay } from '../../../domain/governance/tier-limits';
import type { EventPayloads } from '../../../event-schemas';
import type { NewEvent } from '../../../ports/event-store';
import {
  PROPERTY_OPTIONS,
  schemaProblems,
  snapshot,
  type TenantCommand,
  TenantSimulation,
  tenantCommandArb,
  tenantStartArb,
} from '../property-support';
import { MAX_WEBHOOKS_PER_TENANT } from '../webhooks/webhook-commands';

const sequenceArb = fc.tuple(
  tenantStartArb,
  fc.array(tenantCommandArb, { minLength: 1, maxLength: 30, size: 'max' }),
);

/** The fields every refusal and every answer carries: a refusal is `{ kind: 'refused', … }`. */
function isRefusal(result: unknown): boolean {
  return (result as { kind?: string }).kind === 'refused';
}

/** A tier change to the same tier and allowance, or the policy in force again, decides nothing. */
function isNoOp(command: TenantCommand, result: unknown): boolean {
  if (command.kind === 'policy') return (result as { kind?: string }).kind === 'unchanged';
  return command.kind === 'tier' && (result as { changed?: boolean }).changed === false;
}

type TenantStart = ConstructorParameters<typeof TenantSimulation>[0];

function newSimulation(start: TenantStart): TenantSimulation {
  return new TenantSimulation(start);
}

async function simulate(start: TenantStart, commands: Array<TenantCommand & { advanceMs: number }>) {
  const simulation = newSimulation(start);
  for (const command of commands) await simulation.run(command);
  return simulation;
}

/** How often each refusal came up across a property's runs: the limits must actually be reached. */
function refusalCounts(simulation: TenantSimulation, into: Map<string, number>): void {
  for (const { decision } of simulation.steps) {
    const result = decision.result as { kind?: string; error?: string; message?: string };
    if (result.kind !== 'refused') continue;
    const key =
      result.error === 'TRIAL_EXHAUSTED' && /window/.test(result.message ?? '')
        ? 'TRIAL_WINDOW'
        : result.error!;
    into.set(key, (into.get(key) ?? 0) + 1);
  }
}

describe('tenant commands over arbitrary sequences', () => {
  it('given any sequence, when each command is decided, then none throws, a refusal decides no events and every decided event matches its schema', async () => {
    await fc.assert(
      fc.asyncProperty(sequenceArb, async ([start, commands]) => {
        const simulation = newSimulation(start);
        for (const command of commands) {
          const { decision } = await simulation.run(command);
          if (isRefusal(decision.result) || isNoOp(command, decision.result))
            expect(decision.events).toEqual([]);
          else expect(decision.events.length).toBeGreaterThan(0);
          expect(schemaProblems(decision.events)).toEqual([]);
          for (const event of decision.events) expect(event.tenant_id).toBe(start.tenantId);
        }
      }),
      { ...PROPERTY_OPTIONS, numRuns: 40 },
    );
  });

  it('given any reachable state, when the same command is decided twice at the same instant, then both decisions are equal and the state is untouched', async () => {
    await fc.assert(
      fc.asyncProperty(sequenceArb, tenantCommandArb, async ([start, history], command) => {
        const simulation = await simulate(start, history);
        const before = snapshot(simulation.state);
        const at = new Date(simulation.now.getTime() + command.advanceMs);
        const first = await simulation.decide(command, at);
        const second = await simulation.decide(command, at);
        expect(second).toEqual(first);
        expect(simulation.state).toEqual(before);
      }),
      { ...PROPERTY_OPTIONS, numRuns: 30 },
    );
  });

  it('given any sequence, then a Trial tenant never holds more than its leaf cap nor admits after its window, and no UTC day exceeds the allowance in force', async () => {
    const refusals = new Map<string, number>();
    await fc.assert(
      fc.asyncProperty(sequenceArb, async ([start, commands]) => {
        const simulation = await simulate(start, commands);
        refusalCounts(simulation, refusals);
        expect(limitViolations(simulation.events)).toEqual([]);
      }),
      { ...PROPERTY_OPTIONS, numRuns: 60 },
    );
    // The sequences did run into each limit: a property that never meets a limit proves nothing.
    for (const limit of ['TRIAL_EXHAUSTED', 'TRIAL_WINDOW', 'RATE_LIMITED'])
      expect({ [limit]: (refusals.get(limit) ?? 0) > 0 }).toEqual({ [limit]: true });
  });

  it('given any sequence starting near the webhook cap, then a tenant never has more than the cap registered at once', async () => {
    await fc.assert(
      fc.asyncProperty(sequenceArb, async ([start, commands]) => {
        const simulation = await simulate({ ...start, webhooks: Math.max(start.webhooks, 97) }, commands);
        let registered = 0;
        for (const event of simulation.events) {
          if (event.type === 'WebhookRegistered') registered++;
          if (event.type === 'WebhookRemoved') registered--;
          expect(registered).toBeLessThanOrEqual(MAX_WEBHOOKS_PER_TENANT);
        }
        expect(simulation.state.webhooks.size).toBe(registered);
      }),
      { ...PROPERTY_OPTIONS, numRuns: 30 },
    );
  });

  it('given any sequence, then each authorization leaf is executed at most once, and only its own tenant executes it', async () => {
    await fc.assert(
      fc.asyncProperty(sequenceArb, async ([start, commands]) => {
        const simulation = await simulate(start, commands);
        const admitted = new Set(simulation.admissions.map((a) => a.leaf_hash));
        const executed = simulation.events
          .filter((event) => event.type === 'ExecutionAdmitted')
          .map((event) => (event.data as EventPayloads['ExecutionAdmitted']).trace.parent_auth_leaf_hash);
        expect(new Set(executed).size).toBe(executed.length);
        for (const parent of executed) expect(admitted.has(parent)).toBe(true);
      }),
      { ...PROPERTY_OPTIONS, numRuns: 40 },
    );
  });
});

/**
 * Replays the event log with its own bookkeeping (tier, allowance, registration time, admissions per
 * UTC day) and lists every admission a limit should have refused.
 */
function limitViolations(events: readonly NewEvent[]): string[] {
  let tier: Tier = 'L1';
  let dailyLimit: number | null = null;
  let registeredAt = 0;
  let total = 0;
  const perDay = new Map<string, number>();
  const violations: string[] = [];
  for (const event of events) {
    if (event.type === 'TenantRegistered') {
      const data = event.data as EventPayloads['TenantRegistered'];
      tier = data.tier;
      registeredAt = Date.parse(data.registered_at);
    } else if (event.type === 'TenantTierChanged') {
      const data = event.data as EventPayloads['TenantTierChanged'];
      tier = data.tier;
      dailyLimit = data.daily_leaf_limit;
    } else if (event.type === 'EvidenceAdmitted') {
      const at = (event.data as EventPayloads['EvidenceAdmitted']).admitted_at;
      const limits = TIER_LIMITS[tier];
      if (limits.trial && total >= limits.trial.leafCap)
        violations.push(`leaf ${total + 1} admitted on the trial at ${at}`);
      if (limits.trial && Date.parse(at) >= registeredAt + limits.trial.windowHours * HOUR_MS)
        violations.push(`trial leaf admitted after the window at ${at}`);
      const allowance = dailyLimit ?? limits.leavesPerDay;
      const today = perDay.get(utcDay(at)) ?? 0;
      if (allowance !== null && today >= allowance)
        violations.push(`leaf ${today + 1} of ${utcDay(at)} admitted with an allowance of ${allowance}`);
      perDay.set(utcDay(at), today + 1);
      total++;
    }
  }
  return violations;
}
