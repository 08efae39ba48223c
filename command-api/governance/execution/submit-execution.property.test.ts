/**
 * Properties of `decideSubmitExecution` against any reachable tenant state, any body the schema
 * accepts and any parent the read models could return (the tenant's own leaf, a missing one, another
 * tenant's).
 */
import fc from 'fast-check';
import { TIER_LIMITS } from '../../../domain/governance/tier-limits';
import type { EventPayloads, SubmitExecutionBody } from '../../../event-schemas';
import { validCommandBody } from '../../../event-schemas/schema-arbitrary';
import {
  PROPERTY_OPTIONS,
  recordLeafHash,
  schemaProblems,
  TenantSimulation,
  tenantCommandArb,
  tenantStartArb,
  type ValueOf,
} from '../property-support';
import { decideSubmitExecution, type ParentAuthorization } from './submit-execution';

const caseArb = fc.record({
  start: tenantStartArb,
  // Closed loop needs L2 or above: most tenants are upgraded first.
  upgrade: fc.constantFrom(null, 'L2' as const, 'L4' as const),
  history: fc.array(tenantCommandArb, { maxLength: 16, size: 'max' }),
  body: validCommandBody('submit-execution') as fc.Arbitrary<SubmitExecutionBody>,
  parent: fc.oneof(
    { weight: 4, arbitrary: fc.nat().map((pick) => ({ pick })) },
    { weight: 1, arbitrary: fc.constantFrom('missing' as const, 'foreign' as const) },
  ),
  subject: fc.constantFrom('parent' as const, 'omit' as const, 'body' as const),
});

/** The tenant after its history, the parent the route would look up, and the body it would pass. */
async function reach({ start, upgrade, history, body, parent, subject }: ValueOf<typeof caseArb>) {
  const simulation = new TenantSimulation(start);
  if (upgrade) await simulation.run({ kind: 'tier', tier: upgrade, dailyLeafLimit: null, advanceMs: 0 });
  for (const command of history) await simulation.run(command);
  const admission =
    typeof parent === 'object'
      ? simulation.admissions[parent.pick % Math.max(1, simulation.admissions.length)]
      : undefined;
  const found: ParentAuthorization | null =
    parent === 'missing' || (!admission && parent !== 'foreign')
      ? null
      : {
          tenant_id: parent === 'foreign' ? `ten_${'f'.repeat(24)}` : simulation.state.tenant_id,
          subject_id: admission?.subject_id ?? 'model-9',
          leaf_hash: admission?.leaf_hash ?? body.parent_auth_leaf_hash,
          auth_state: admission?.observables ?? { H: 0.5, C: 0.5, E: 0.5 },
        };
  const sent: SubmitExecutionBody = {
    ...body,
    parent_auth_leaf_hash: found?.leaf_hash ?? body.parent_auth_leaf_hash,
  };
  if (subject === 'omit') delete sent.subject_id;
  if (subject === 'parent' && found) sent.subject_id = found.subject_id;
  return { simulation, parent: found, body: sent };
}

const context = (simulation: TenantSimulation) => ({ now: simulation.now, correlationId: 'corr-property' });

describe('decideSubmitExecution', () => {
  it('given any state, body and parent, then it never throws; a refusal decides nothing, an admission exactly an execution and its variance, both valid', async () => {
    await fc.assert(
      fc.asyncProperty(caseArb, async (input) => {
        const { simulation, parent, body } = await reach(input);
        const { events, result } = decideSubmitExecution(simulation.state, body, parent, context(simulation));
        if (result.kind === 'refused') expect(events).toEqual([]);
        else expect(events.map((e) => e.type)).toEqual(['ExecutionAdmitted', 'VarianceRecorded']);
        expect(schemaProblems(events)).toEqual([]);
      }),
      { ...PROPERTY_OPTIONS, numRuns: 60 },
    );
  });

  it('given any state, then only an L2+ tenant’s own, not yet executed authorization of the named subject is admitted', async () => {
    await fc.assert(
      fc.asyncProperty(caseArb, async (input) => {
        const { simulation, parent, body } = await reach(input);
        const { state } = simulation;
        const { result } = decideSubmitExecution(state, body, parent, context(simulation));
        const admissible =
          TIER_LIMITS[state.tier].closedLoop &&
          parent !== null &&
          parent.tenant_id === state.tenant_id &&
          (body.subject_id === undefined || body.subject_id === parent.subject_id) &&
          !state.executed.has(parent.leaf_hash);
        expect(result.kind).toBe(admissible ? 'admitted' : 'refused');
      }),
      { ...PROPERTY_OPTIONS, numRuns: 60 },
    );
  });

  it('given an admission, then both leaf hashes recompute from the records and the variance links the two leaves', async () => {
    await fc.assert(
      fc.asyncProperty(caseArb, async (input) => {
        const { simulation, parent, body } = await reach(input);
        const { events, result } = decideSubmitExecution(simulation.state, body, parent, context(simulation));
        fc.pre(result.kind === 'admitted');
        const execution = events[0]!.data as EventPayloads['ExecutionAdmitted'];
        const variance = events[1]!.data as EventPayloads['VarianceRecorded'];
        expect(execution.leaf_hash).toBe(recordLeafHash(execution.trace));
        expect(variance.leaf_hash).toBe(recordLeafHash(variance.record));
        expect(variance.record).toMatchObject({
          parent_auth_leaf_hash: parent!.leaf_hash,
          parent_exec_leaf_hash: execution.leaf_hash,
          auth_state: parent!.auth_state,
        });
        expect(result).toMatchObject({
          exec_leaf_hash: execution.leaf_hash,
          variance_leaf_hash: variance.leaf_hash,
          variance: variance.record,
        });
      }),
      { ...PROPERTY_OPTIONS, numRuns: 40 },
    );
  });
});
