/**
 * Properties of `decideSubmitEvidence` against any reachable tenant state and any body the route can
 * hand it (the request schema accepted it), hostile ones included.
 */
import fc from 'fast-check';
import { ValidatorNetworkError } from '../../../domain/governance/validators';
import type { EventPayloads, SubmitEvidenceBody } from '../../../event-schemas';
import { validCommandBody } from '../../../event-schemas/schema-arbitrary';
import {
  admissionContext,
  canonicalSha256,
  evidenceBodyArb,
  PROPERTY_OPTIONS,
  recordLeafHash,
  schemaProblems,
  TenantSimulation,
  tenantCommandArb,
  tenantStartArb,
  type ValueOf,
} from '../property-support';
import { subjectOf } from '../tenants/tenant-state';
import { decideWithCertificate, type EvidenceOutcome } from './submit-evidence';

/** A tenant after an arbitrary history, and the instant of the next command. */
const stateArb = fc
  .tuple(
    tenantStartArb,
    fc.array(tenantCommandArb, { maxLength: 8 }),
    fc.integer({ min: 0, max: 80 * 3_600_000 }),
  )
  .map(([start, history, advanceMs]) => ({ start, history, advanceMs }));

async function reach({ start, history, advanceMs }: ValueOf<typeof stateArb>) {
  const simulation = new TenantSimulation(start);
  for (const command of history) await simulation.run(command);
  return { simulation, at: new Date(simulation.now.getTime() + advanceMs) };
}

/** Bodies meant to trip object handling: prototype keys as subject and metric names. */
const prototypeKeysArb = evidenceBodyArb.chain((body) =>
  fc.constantFrom('__proto__', 'constructor', 'toString', 'hasOwnProperty').map((name) => {
    const tricky: SubmitEvidenceBody = JSON.parse(JSON.stringify(body));
    tricky.subject_id = name;
    tricky.gate_results.G3.protected_metrics = JSON.parse(`{"${name}": 0.01, "toxicity": 0.01}`);
    return tricky;
  }),
);

/** What the route would decide on: bodies the schema accepts (the others are a 400 before deciding). */
const routedBodyArb = fc.oneof(
  evidenceBodyArb,
  prototypeKeysArb,
  // Anything the schema accepts, about any subject (near-misses of a valid body are all 400s here).
  validCommandBody('submit-evidence'),
) as fc.Arbitrary<SubmitEvidenceBody>;

function eventsMatchOutcome(outcome: EvidenceOutcome, events: readonly { type: string; data: unknown }[]) {
  switch (outcome.kind) {
    case 'refused':
      expect(events).toEqual([]);
      return;
    case 'gate-failed':
      expect(events.map((e) => e.type)).toEqual(['GateFailed']);
      expect(events[0]!.data).toBe(outcome.event);
      return;
    case 'admitted':
      expect(events.map((e) => e.type)).toEqual(['EvidenceAdmitted']);
  }
}

describe('decideSubmitEvidence (plan, certify, decide)', () => {
  it('given any reachable state and any body the schema accepts, then it never throws, and decides exactly the events its outcome names, each valid', async () => {
    await fc.assert(
      fc.asyncProperty(stateArb, routedBodyArb, async (state, body) => {
        const { simulation, at } = await reach(state);
        const { events, result } = await decideWithCertificate(simulation.state, body, admissionContext(at));
        eventsMatchOutcome(result, events);
        expect(schemaProblems(events)).toEqual([]);
      }),
      { ...PROPERTY_OPTIONS, numRuns: 100 },
    );
  });

  it('given an admission, then its artifact_hash, leaf_hash and chain link recompute from the event alone', async () => {
    await fc.assert(
      fc.asyncProperty(stateArb, routedBodyArb, async (state, body) => {
        const { simulation, at } = await reach(state);
        const subject = subjectOf(simulation.state, body.subject_id);
        const { events, result } = await decideWithCertificate(simulation.state, body, admissionContext(at));
        fc.pre(result.kind === 'admitted');
        const data = events[0]!.data as EventPayloads['EvidenceAdmitted'];
        expect(data.artifact_hash).toBe(canonicalSha256(data.bundle));
        expect(data.leaf_hash).toBe(recordLeafHash(data.envelope));
        expect(data.envelope.artifact_hash).toBe(data.artifact_hash);
        expect(data.certificate.body_hash).toBe(data.artifact_hash);
        expect(data.bundle.parent_bundle_hash).toBe(subject.last_bundle_hash);
        expect(data.bundle).toMatchObject({
          gate_results: body.gate_results,
          evidence: body.evidence,
          replay_seed: body.replay_seed,
        });
        expect(result).toEqual({
          kind: 'admitted',
          artifact_hash: data.artifact_hash,
          leaf_hash: data.leaf_hash,
          log: simulation.state.log,
        });
      }),
      { ...PROPERTY_OPTIONS, numRuns: 60 },
    );
  });

  it('given a gate failure, then its submission_hash is the hash of the body as submitted', async () => {
    await fc.assert(
      fc.asyncProperty(stateArb, routedBodyArb, async (state, body) => {
        const { simulation, at } = await reach(state);
        const { result } = await decideWithCertificate(simulation.state, body, admissionContext(at));
        fc.pre(result.kind === 'gate-failed');
        expect(result.event.submission_hash).toBe(canonicalSha256(body));
        expect(result.event.gates_failed.length).toBeGreaterThan(0);
      }),
      { ...PROPERTY_OPTIONS, numRuns: 60 },
    );
  });

  it('given validators that cannot be reached, then it fails only with the validator round’s errors, or decides as without them', async () => {
    await fc.assert(
      fc.asyncProperty(stateArb, routedBodyArb, fc.integer({ min: 0, max: 4 }), async (state, body, down) => {
        const { simulation, at } = await reach(state);
        const healthy = await decideWithCertificate(simulation.state, body, admissionContext(at));
        const decided = await decideWithCertificate(simulation.state, body, admissionContext(at, down)).then(
          ({ result }) => result.kind,
          (error: unknown) => error,
        );
        // Two of four unreachable put the quorum (3) out of reach, and the network is to blame; with
        // fewer the decision is the same; a refusal or gate failure never asks the validators at all.
        if (down >= 2 && healthy.result.kind === 'admitted')
          expect(decided).toBeInstanceOf(ValidatorNetworkError);
        else expect(decided).toBe(healthy.result.kind);
      }),
      { ...PROPERTY_OPTIONS, numRuns: 40 },
    );
  });
});
