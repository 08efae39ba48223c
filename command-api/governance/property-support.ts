/**
 * Test support for the command handlers' property tests: arbitrary tenant commands, a simulation that
 * decides them one after the other and folds their events through the tenant aggregate (as the
 * AggregateWriter does, without a store), and independent recomputations of what events claim.
 * Test-only: nothing at runtime imports it.
 */
import { createHash, createPublicKey, type KeyObject } from 'node:crypto';
import canonicalize from 'canonicalize';
import fc from 'fast-check';
import { authorityNodeIdOf } from '../../domain/governance/envelope';
import { DEFAULT_POLICY } from '../../domain/governance/policy';
import { ed25519Keys, policyWith, validBody } from '../../domain/governance/test-fixtures';
import type { Tier } from '../../domain/governance/tier-limits';
import { createLocalValidators, type Validator } from '../../domain/governance/validators';
import { logUrlOf } from '../../domain/log';
import {
  type EventPayloads,
  isKnownEventType,
  type SubmitEvidenceBody,
  type SubmitExecutionBody,
  type TenantPolicy,
  validateEventData,
  type WebhookRegistered,
} from '../../event-schemas';
import { validCommandBody } from '../../event-schemas/schema-arbitrary';
import type { NewEvent } from '../../ports/event-store';
import type { AnyEvent, Decision } from '../engine/aggregate-writer';
import { type AdmissionContext, decideWithCertificate } from './evidence/submit-evidence';
import { decideSubmitExecution, type ParentAuthorization } from './execution/submit-execution';
import { decideChangePolicy } from './policy/policy-commands';
import { decideChangeTier, decideRotateKey } from './tenants/account-commands';
import type { IssuedKey } from './tenants/api-keys';
import { decideRegisterTenant } from './tenants/register-tenant';
import { evolveTenant, initialTenantState, type TenantEvent, type TenantState } from './tenants/tenant-state';
import { decideRedeliver, decideRegisterWebhook, decideRemoveWebhook } from './webhooks/webhook-commands';

/** The type of the values an arbitrary generates. */
export type ValueOf<A> = A extends fc.Arbitrary<infer T> ? T : never;

/** Seed of every property here: fixed, so CI is reproducible; fast-check prints seed and path of a failure. */
const PROPERTY_SEED = 20_261_121;

/**
 * Options of every property: the fixed seed, and a cap on the time a property (its shrinking
 * included) may take, so that a failure is reported with the smallest counterexample found by then.
 */
export const PROPERTY_OPTIONS = { seed: PROPERTY_SEED, interruptAfterTimeLimit: 30_000 } as const;

const [authorityKey, ...validatorKeys] = ed25519Keys(5) as [KeyObject, ...KeyObject[]];
const validators = createLocalValidators(validatorKeys);
const authority = { privateKey: authorityKey, nodeId: authorityNodeIdOf(createPublicKey(authorityKey)) };

/** Validators of which the first `unreachable` fail every vote, as a network partition would. */
function validatorsWith(unreachable: number): Validator[] {
  return validators.map((validator, i) =>
    i < unreachable
      ? {
          id: validator.id,
          publicKey: validator.publicKey,
          vote: () => Promise.reject(new Error('connect ECONNREFUSED')),
        }
      : validator,
  );
}

/** The admission context the routes build, with fixed keys and links. */
export function admissionContext(now: Date, unreachableValidators = 0): AdmissionContext {
  return {
    now,
    correlationId: 'corr-property',
    validators: validatorsWith(unreachableValidators),
    authority,
    // Each log its own (made-up) key name and its URL.
    logBinding: (log) => ({
      log_id: `gov.example/gov/v1/log${log === 'shared' ? '' : `/${log}`}+01020304+AQID`,
      log_url: logUrlOf('https://gov.example', log),
    }),
    replayUrl: (artifactHash) => `https://gov.example/governance/replay/${artifactHash}`,
  };
}

const hex = (length: number) => fc.stringMatching(new RegExp(`^[0-9a-f]{${length}}$`));
export const tenantIdArb = hex(24).map((digits) => `ten_${digits}`);
const sha256Arb = hex(64);

/** A few subjects, so that sequences reach QUARANTINE, LOCKBOX and REJECTED. */
const SUBJECTS = ['model-1', 'model-2', 'model-3'] as const;

/**
 * Evidence that passes every gate under the default policy (the fixture with arbitrary hashes,
 * bounds and metrics), so that sequences admit leaves and reach the tier limits.
 */
const passingEvidence: fc.Arbitrary<SubmitEvidenceBody> = fc
  .record({
    subject_id: fc.constantFrom(...SUBJECTS),
    lower: fc.double({ min: 0.8, max: 0.9, noNaN: true }),
    iterations: fc.integer({ min: 1000, max: 1_000_000 }),
    delta: fc.double({ min: 0.05, max: 1, noNaN: true }),
    evidenceClass: fc.constantFrom('HOOKED', 'ATTESTED', 'INSTRUMENTED'),
    hashes: fc.array(sha256Arb, { minLength: 6, maxLength: 6 }),
    replay_seed: fc.oneof(hex(16), fc.webUrl()),
  })
  .map(({ subject_id, lower, iterations, delta, evidenceClass, hashes, replay_seed }) => {
    const body = validBody();
    body.subject_id = subject_id;
    body.gate_results.G1.confidence_interval_lower = lower;
    body.gate_results.G1.confidence_interval_upper = lower + 0.05;
    body.gate_results.G1.bootstrap_iterations = iterations;
    body.gate_results.G2.ablation_delta = delta;
    body.gate_results.G4.evidence_class = evidenceClass;
    const [a, b, c, d, e, f] = hashes as [string, string, string, string, string, string];
    body.evidence = {
      dataset_provenance_hash: a,
      evaluation_trace_hash: b,
      ablation_execution_log_hash: c,
      capability_certificate_hash: d,
    };
    body.state_before_hash = e;
    body.state_after_hash = f;
    body.replay_seed = replay_seed;
    return body;
  });

/** Any body the schema accepts (most fail a gate), often about one of the simulation's subjects. */
const schemaEvidence = fc
  .tuple(
    validCommandBody('submit-evidence') as fc.Arbitrary<SubmitEvidenceBody>,
    fc.option(fc.constantFrom(...SUBJECTS)),
  )
  .map(([body, subject]) => (subject ? { ...body, subject_id: subject } : body));

/** Evidence bodies the route hands to the decision: mostly passing, and anything the schema allows. */
export const evidenceBodyArb: fc.Arbitrary<SubmitEvidenceBody> = fc.oneof(
  { weight: 3, arbitrary: passingEvidence },
  { weight: 2, arbitrary: schemaEvidence },
);

const TIERS: readonly Tier[] = ['L1', 'L2', 'L2+', 'L4'];

/** Milliseconds the clock moves before a command: often none, sometimes across a UTC day or the trial window. */
const advanceArb = fc.oneof(
  fc.constant(0),
  fc.integer({ min: 1, max: 120_000 }),
  fc.integer({ min: 3_600_000, max: 30 * 3_600_000 }),
);

export type TenantCommand =
  | { kind: 'evidence'; body: SubmitEvidenceBody }
  | {
      kind: 'execution';
      /** Which admitted leaf to execute (modulo their number), or a missing / another tenant's leaf. */
      parent: { pick: number } | 'missing' | 'foreign';
      /** Use the parent's subject_id, omit it, or send the body's own. */
      subject: 'parent' | 'omit' | 'body';
      body: SubmitExecutionBody;
    }
  | { kind: 'tier'; tier: Tier; dailyLeafLimit: number | null }
  | { kind: 'rotate' }
  | { kind: 'policy'; policy: TenantPolicy }
  | { kind: 'register-webhook'; events: WebhookRegistered['events'] }
  | { kind: 'remove-webhook'; pick: number | string }
  | { kind: 'redeliver'; pick: number | string };

const webhookIdArb = hex(24).map((digits) => `wh_${digits}`);

/**
 * Policies a tenant sets: back to the default, a laxer or a stricter one than the passing evidence
 * needs (its toxicity is 0.01), or any valid policy (most of which the evidence then fails).
 */
const policyArb: fc.Arbitrary<TenantPolicy> = fc.oneof(
  fc.constant(DEFAULT_POLICY),
  fc.constant(policyWith({ g1_min_confidence_lower: 0.5, g1_min_bootstrap_iterations: 1 })),
  fc.constant(policyWith({ g3_metric_maximums: { toxicity: 0.005 } })),
  validCommandBody('change-policy') as fc.Arbitrary<TenantPolicy>,
);

export const tenantCommandArb: fc.Arbitrary<TenantCommand & { advanceMs: number }> = fc
  .tuple(
    fc.oneof(
      { weight: 6, arbitrary: evidenceBodyArb.map((body) => ({ kind: 'evidence' as const, body })) },
      {
        weight: 3,
        arbitrary: fc.record({
          kind: fc.constant('execution' as const),
          parent: fc.oneof(
            { weight: 4, arbitrary: fc.nat().map((pick) => ({ pick })) },
            { weight: 1, arbitrary: fc.constantFrom('missing' as const, 'foreign' as const) },
          ),
          subject: fc.constantFrom('parent' as const, 'omit' as const, 'body' as const),
          body: validCommandBody('submit-execution') as fc.Arbitrary<SubmitExecutionBody>,
        }),
      },
      {
        weight: 1,
        arbitrary: fc.record({
          kind: fc.constant('tier' as const),
          tier: fc.constantFrom(...TIERS),
          dailyLeafLimit: fc.option(fc.integer({ min: 0, max: 6 })),
        }),
      },
      { weight: 1, arbitrary: fc.constant({ kind: 'rotate' as const }) },
      { weight: 1, arbitrary: policyArb.map((policy) => ({ kind: 'policy' as const, policy })) },
      {
        weight: 2,
        arbitrary: fc.record({
          kind: fc.constant('register-webhook' as const),
          events: fc.constant(['leaf_admitted'] as WebhookRegistered['events']),
        }),
      },
      {
        weight: 1,
        arbitrary: fc.record({
          kind: fc.constant('remove-webhook' as const),
          pick: fc.oneof(fc.nat(), webhookIdArb),
        }),
      },
      {
        weight: 1,
        arbitrary: fc.record({
          kind: fc.constant('redeliver' as const),
          pick: fc.oneof(fc.nat(), webhookIdArb),
        }),
      },
    ),
    advanceArb,
  )
  .map(([command, advanceMs]) => ({ ...command, advanceMs }) as TenantCommand & { advanceMs: number });

/** Where a simulated tenant starts: registered at some instant, maybe with webhooks near the cap. */
export const tenantStartArb = fc.record({
  tenantId: tenantIdArb,
  registeredAt: fc
    .date({
      min: new Date('2024-01-01T00:00:00Z'),
      max: new Date('2030-01-01T00:00:00Z'),
      noInvalidDate: true,
    })
    // Whole milliseconds at arbitrary times of day, so runs cross UTC midnight.
    .map((date) => new Date(Math.floor(date.getTime()))),
  mode: fc.constantFrom('live' as const, 'test' as const),
  webhooks: fc.oneof(fc.constant(0), fc.integer({ min: 95, max: 100 })),
});

/** A fixed key, so decisions that issue keys can be compared. */
export const FIXED_KEY: IssuedKey = {
  apiKey: `gov_live_0123456789abcdef_${'A'.repeat(43)}`,
  keyId: '0123456789abcdef',
  keyHash: 'b'.repeat(64),
};

export interface Admission {
  leaf_hash: string;
  subject_id: string;
  observables: ParentAuthorization['auth_state'];
}

/** One decided command: what it was, when, and what it decided. */
export interface Step {
  command: TenantCommand;
  at: Date;
  decision: Decision<unknown>;
}

/**
 * A tenant's stream in memory: decisions are made against the state folded from every event so far,
 * and their events are folded in as the AggregateWriter does after an append.
 */
export class TenantSimulation {
  state: TenantState = initialTenantState();
  readonly events: NewEvent[] = [];
  readonly admissions: Admission[] = [];
  readonly steps: Step[] = [];
  now: Date;

  constructor(start: { tenantId: string; registeredAt: Date; mode: 'live' | 'test'; webhooks: number }) {
    this.now = start.registeredAt;
    const registration = decideRegisterTenant(
      { email: 'owner@example.com', mode: start.mode },
      this.now,
      { tenantId: start.tenantId, nodeId: `node_${'0'.repeat(24)}` },
      FIXED_KEY,
    );
    this.fold([
      { ...registration.event, tenant_id: start.tenantId, correlation_id: 'c', causation_id: null },
    ]);
    for (let i = 0; i < start.webhooks; i++) {
      const id = `wh_${i.toString(16).padStart(24, '0')}`;
      this.fold(
        decideRegisterWebhook(this.state, id, registration_(), {
          now: this.now,
          correlationId: 'c',
          keyId: FIXED_KEY.keyId,
        }).events,
      );
    }
  }

  /** Decides `command` at the current time (after advancing the clock) without applying it. */
  async decide(command: TenantCommand, at = this.now): Promise<Decision<unknown>> {
    // Made with the tenant's current key, as its owner does (a rotated-out key: current-key.ts).
    const context = { now: at, correlationId: 'corr-property', keyId: this.state.active_key_id ?? '' };
    switch (command.kind) {
      case 'evidence':
        return decideWithCertificate(this.state, command.body, admissionContext(at));
      case 'execution': {
        const parent = this.parentFor(command.parent);
        const body = {
          ...command.body,
          parent_auth_leaf_hash: parent?.leaf_hash ?? command.body.parent_auth_leaf_hash,
        };
        if (command.subject === 'omit') delete body.subject_id;
        if (command.subject === 'parent' && parent) body.subject_id = parent.subject_id;
        return decideSubmitExecution(this.state, body, parent, context);
      }
      case 'tier':
        return decideChangeTier(
          this.state,
          { tier: command.tier, dailyLeafLimit: command.dailyLeafLimit, operator: 'property@test' },
          context,
        );
      case 'rotate':
        return decideRotateKey(this.state, context, FIXED_KEY);
      case 'policy':
        return decideChangePolicy(this.state, command.policy, context);
      case 'register-webhook':
        return decideRegisterWebhook(
          this.state,
          this.nextWebhookId(),
          registration_(command.events),
          context,
        );
      case 'remove-webhook':
        return decideRemoveWebhook(this.state, this.webhookFor(command.pick), context);
      case 'redeliver':
        return decideRedeliver(
          this.state,
          this.webhookFor(command.pick),
          `${this.webhookFor(command.pick)}.evt_${'1'.repeat(32)}`,
          context,
        );
    }
  }

  /** Advances the clock, decides, and folds the decision's events into the state. */
  async run(command: TenantCommand & { advanceMs: number }): Promise<Step> {
    this.now = new Date(this.now.getTime() + command.advanceMs);
    const decision = await this.decide(command);
    this.fold(decision.events);
    const step = { command, at: this.now, decision };
    this.steps.push(step);
    return step;
  }

  private fold(events: readonly NewEvent[]): void {
    for (const event of events) {
      this.state = evolveTenant(this.state, event as TenantEvent);
      this.events.push(event);
      if (event.type === 'EvidenceAdmitted') {
        const data = event.data as EventPayloads['EvidenceAdmitted'];
        this.admissions.push({
          leaf_hash: data.leaf_hash,
          subject_id: data.subject_id,
          observables: data.observables,
        });
      }
    }
  }

  private parentFor(parent: { pick: number } | 'missing' | 'foreign'): ParentAuthorization | null {
    if (parent === 'missing') return null;
    const admission =
      this.admissions[typeof parent === 'object' ? parent.pick % Math.max(1, this.admissions.length) : 0];
    if (!admission) return null;
    return {
      tenant_id: parent === 'foreign' ? `ten_${'f'.repeat(24)}` : this.state.tenant_id,
      subject_id: admission.subject_id,
      leaf_hash: admission.leaf_hash,
      auth_state: admission.observables,
    };
  }

  private nextWebhookId(): string {
    return `wh_${(0x10000 + this.events.length).toString(16).padStart(24, '0')}`;
  }

  private webhookFor(pick: number | string): string {
    if (typeof pick === 'string') return pick;
    const ids = [...this.state.webhooks.keys()];
    return ids[pick % Math.max(1, ids.length)] ?? `wh_${'e'.repeat(24)}`;
  }
}

function registration_(events: WebhookRegistered['events'] = ['leaf_admitted']) {
  return { url: 'https://hooks.example/gov', events, secretSealed: 'sealed', secretGenerated: true };
}

/** Problems of each event against its type's schema (empty: every event is valid, as the store requires). */
export function schemaProblems(events: readonly NewEvent[]): string[] {
  return events.flatMap((event) => {
    if (!isKnownEventType(event.type)) return [`${event.type}: unknown event type`];
    const result = validateEventData(event.type, event.data);
    return result.ok ? [] : result.problems.map((p) => `${event.type} ${p.pointer} ${p.reason}`);
  });
}

/** SHA-256 hex of RFC 8785 canonical JSON, computed here without the service's own helpers. */
export function canonicalSha256(value: unknown): string {
  return createHash('sha256')
    .update(canonicalize(value) as string)
    .digest('hex');
}

/** RFC 9162 leaf hash of a record: SHA-256(0x00 ‖ JCS(record)), computed independently. */
export function recordLeafHash(record: unknown): string {
  return createHash('sha256')
    .update(Buffer.from([0]))
    .update(canonicalize(record) as string)
    .digest('hex');
}

/** The tenant after `events`, from `state` (the initial one unless given), as the writer folds them. */
export function foldTenant(
  events: readonly AnyEvent[],
  state: TenantState = initialTenantState(),
): TenantState {
  return events.reduce((folded, event) => evolveTenant(folded, event as TenantEvent), state);
}

/** Deep copy of a tenant state (Maps and Sets included), to prove a decision leaves it unchanged. */
export function snapshot(state: TenantState): TenantState {
  return structuredClone(state);
}
