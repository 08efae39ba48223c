/**
 * One simulated tenant of the audit fixture. It decides its requests exactly as the server does: the
 * command handlers' decide functions (registration, the operator's tier change, evidence through the
 * gates, the validator round, the certificate and the authority-signed envelope, executions and their
 * variance) run against the tenant aggregate, and each decision becomes one append to the tenant's
 * stream at the expected revision, as the aggregate writer makes it.
 */
import { randomUUID } from 'node:crypto';
import {
  type AdmissionContext,
  decideWithCertificate,
} from '../command-api/governance/evidence/submit-evidence';
import {
  decideSubmitExecution,
  type ParentAuthorization,
} from '../command-api/governance/execution/submit-execution';
import { decideChangeTier } from '../command-api/governance/tenants/account-commands';
import { decideRegisterTenant } from '../command-api/governance/tenants/register-tenant';
import {
  type TenantEvent,
  type TenantState,
  tenantAggregate,
  tenantStream,
} from '../command-api/governance/tenants/tenant-state';
import type { EvidenceAdmitted } from '../event-schemas';
import type { ExpectedRevision, NewEvent } from '../ports/event-store';
import { UNLIMITED_IN_SHARED_LOG } from '../tests/support/unlimited-tenant';
import { evidenceBody, executionBody, nextRequestKind, type RequestKind } from './audit-fixture-plan';

/** An event with its id decided up front, as the aggregate writer gives them. */
type NewEventWithId = NewEvent & { id: string };

/** One append to a tenant stream, with the revision the stream must be at. */
export interface StreamAppend {
  stream: string;
  expectedRevision: ExpectedRevision;
  events: NewEventWithId[];
}

/** What every admission is signed with and bound to (the server's `services.admission`). */
export type AdmissionSigners = Pick<AdmissionContext, 'validators' | 'authority' | 'logBinding'> & {
  /** The server's public URL: replay links are `<publicUrl>/governance/replay/<artifact_hash>`. */
  publicUrl: string;
};

/** What one request did: the append it decided and how many leaves that append admits. */
export interface RequestOutcome {
  kind: RequestKind;
  append: StreamAppend;
  leaves: number;
}

export class SimulatedTenant {
  private state: TenantState = tenantAggregate.initial();
  private revision = -1;
  private requests = 0;
  private executions = 0;
  private leavesLeft: number;
  /** The latest admitted authorization still waiting for its execution. */
  private unexecuted: ParentAuthorization | null = null;

  constructor(
    /** Position of the tenant in the fixture plan (its evidence digests derive from it). */
    readonly index: number,
    quota: number,
    private readonly signers: AdmissionSigners,
  ) {
    this.leavesLeft = quota;
  }

  get tenantId(): string {
    return this.state.tenant_id;
  }

  /** Whether every leaf of the tenant's quota is decided. */
  get done(): boolean {
    return this.leavesLeft === 0;
  }

  /**
   * POST /auto-register, then the operator's tier change that lifts its limits with its leaves staying
   * in the shared log (tests/support/unlimited-tenant.ts): two appends.
   */
  register(now: Date): StreamAppend[] {
    if (this.state.exists) throw new Error(`tenant ${this.index} is already registered`);
    const registration = decideRegisterTenant(
      { email: `owner-${this.index}@audit-fixture.example`, organization: `Audit Fixture ${this.index}` },
      now,
    );
    const registered = this.commit([
      {
        ...registration.event,
        tenant_id: registration.event.data.tenant_id,
        correlation_id: randomUUID(),
        causation_id: null,
      },
    ]);
    const tierChange = decideChangeTier(
      this.state,
      {
        tier: UNLIMITED_IN_SHARED_LOG.tier,
        dailyLeafLimit: null,
        requestsPerMinute: Number(UNLIMITED_IN_SHARED_LOG.requestsPerMinute),
        operator: 'audit-fixture',
      },
      { now, correlationId: `cli-${randomUUID()}` },
    );
    return [registered, this.commit(tierChange.events)];
  }

  /** Decides the tenant's next request; throws when the server would have refused it. */
  async request(now: Date): Promise<RequestOutcome> {
    if (!this.state.exists) throw new Error(`tenant ${this.index} must register before it sends requests`);
    if (this.done) throw new Error(`tenant ${this.index} has admitted all its leaves`);
    const kind = nextRequestKind({
      requests: this.requests,
      leavesLeft: this.leavesLeft,
      hasUnexecutedAuthorization: this.unexecuted !== null,
    });
    this.requests++;
    const events = kind === 'execution' ? this.execute(now) : await this.submitEvidence(kind, now);
    const leaves = kind === 'failing-evidence' ? 0 : events.length;
    this.leavesLeft -= leaves;
    return { kind, append: this.commit(events), leaves };
  }

  private async submitEvidence(kind: RequestKind, now: Date): Promise<NewEvent[]> {
    const failing = kind === 'failing-evidence';
    const { publicUrl, ...signers } = this.signers;
    const decision = await decideWithCertificate(
      this.state,
      evidenceBody(this.index, this.requests, failing),
      {
        ...signers,
        now,
        correlationId: randomUUID(),
        replayUrl: (artifactHash) => `${publicUrl}/governance/replay/${artifactHash}`,
      },
    );
    const outcome = decision.result;
    const expected = failing ? 'gate-failed' : 'admitted';
    if (outcome.kind !== expected)
      throw new Error(
        `tenant ${this.index}: evidence request ${this.requests} was ${outcome.kind}, not ${expected}` +
          (outcome.kind === 'refused' ? ` (${outcome.error}: ${outcome.message})` : ''),
      );
    if (!failing) {
      const data = decision.events[0]!.data as EvidenceAdmitted;
      this.unexecuted = {
        tenant_id: data.tenant_id,
        subject_id: data.subject_id,
        leaf_hash: data.leaf_hash,
        auth_state: data.observables,
      };
    }
    return decision.events;
  }

  private execute(now: Date): NewEvent[] {
    const parent = this.unexecuted!;
    this.executions++;
    const decision = decideSubmitExecution(
      this.state,
      executionBody(this.index, this.requests, this.executions, parent.leaf_hash),
      parent,
      { now, correlationId: randomUUID() },
    );
    if (decision.result.kind !== 'admitted')
      throw new Error(
        `tenant ${this.index}: execution of ${parent.leaf_hash} was refused (${decision.result.message})`,
      );
    this.unexecuted = null;
    return decision.events;
  }

  /** Gives the events ids, folds them into the state and returns them as the next append. */
  private commit(events: readonly NewEvent[]): StreamAppend {
    const withIds = events.map((event) => ({ ...event, id: event.id ?? randomUUID() }));
    for (const event of withIds) this.state = tenantAggregate.evolve(this.state, event as TenantEvent);
    const append: StreamAppend = {
      stream: tenantStream(this.state.tenant_id),
      expectedRevision: this.revision < 0 ? 'no-stream' : this.revision,
      events: withIds,
    };
    this.revision += withIds.length;
    return append;
  }
}
