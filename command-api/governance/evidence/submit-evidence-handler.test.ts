/**
 * Plan → certify → decide over the real aggregate writer and embedded store: the validator round runs
 * outside the tenant's queue, once per plan; a version conflict decides again with the certificate it
 * has, and only a moved chain (or policy) asks the validators again.
 */
import path from 'node:path';
import { SqliteEventStore } from '../../../adapters/sqlite/event-store';
import { certifyAndSeal } from '../../../domain/governance/admission-round';
import { validBody } from '../../../domain/governance/test-fixtures';
import type { EvidenceAdmitted } from '../../../event-schemas';
import { type EventStore, WrongExpectedVersionError } from '../../../ports/event-store';
import { observeAppends } from '../../../runtime/wiring/observed-appends';
import { tempDir } from '../../../tests/support/temp-dir';
import { AggregateWriter } from '../../engine/aggregate-writer';
import { admissionContext, FIXED_KEY } from '../property-support';
import { decideRotateKey } from '../tenants/account-commands';
import { decideRegisterTenant, decideRegistration } from '../tenants/register-tenant';
import { tenantAggregate, tenantStream } from '../tenants/tenant-state';
import { decideRegisterWebhook } from '../webhooks/webhook-commands';
import { submitEvidence } from './admit-evidence';
import type { AdmissionContext } from './submit-evidence';

const now = new Date('2026-03-01T10:00:00Z');
const tenantId = `ten_${'7'.repeat(24)}`;
const stream = tenantStream(tenantId);
const keyContext = { now, correlationId: 'c', keyId: FIXED_KEY.keyId };

/** The property tests' admission context, with a certifier that counts its rounds and may be held up. */
function countingContext(hold?: Promise<void>) {
  const base = admissionContext(now);
  const rounds = { count: 0 };
  const context: AdmissionContext = {
    ...base,
    certify: async (request, fields) => {
      rounds.count += 1;
      await hold;
      return certifyAndSeal(base.validators, request, fields, base.authority);
    },
  };
  return { context, rounds };
}

describe('submitting evidence through the aggregate writer', () => {
  let temp: ReturnType<typeof tempDir>;
  let store: SqliteEventStore;
  beforeEach(async () => {
    temp = tempDir('submit-evidence-handler');
    store = new SqliteEventStore({ file: path.join(temp.dir, 'events.db') });
    const registration = decideRegisterTenant(
      { email: 'owner@example.com' },
      now,
      { tenantId, nodeId: `node_${'8'.repeat(24)}` },
      FIXED_KEY,
    );
    await new AggregateWriter(store, tenantAggregate).execute(
      stream,
      (state) => decideRegistration(state, registration, 'c'),
      { create: true },
    );
  });
  afterEach(async () => {
    await store.close();
    temp.remove();
  });

  it('given another process appended between the plan and the decision, when the append conflicts, then the decision is made again with the same certificate: the round runs once', async () => {
    const { store: observed, conflicts } = countingConflicts(store);
    const ours = new AggregateWriter(observed, tenantAggregate);
    const theirs = new AggregateWriter(store, tenantAggregate);
    await ours.state(stream); // ours caches the tenant as registered
    await theirs.execute(stream, (state) =>
      decideRegisterWebhook(
        state,
        `wh_${'1'.repeat(24)}`,
        {
          url: 'https://hooks.example/gov',
          events: ['leaf_admitted'],
          secretSealed: 's',
          secretGenerated: true,
        },
        keyContext,
      ),
    );
    const { context, rounds } = countingContext();
    const outcome = await submitEvidence(ours, stream, validBody(), context);
    expect(outcome.kind).toBe('admitted');
    expect(conflicts.count).toBe(1);
    expect(rounds.count).toBe(1);
    expect(await types()).toEqual(['TenantRegistered', 'WebhookRegistered', 'EvidenceAdmitted']);
  });

  it('given the subject’s chain moved while the round ran, then the certificate is not used: the round runs again for a bundle chained to the new head', async () => {
    const ours = new AggregateWriter(store, tenantAggregate);
    const theirs = new AggregateWriter(store, tenantAggregate);
    const base = admissionContext(now);
    let rounds = 0;
    let theirHash: string | undefined;
    const context: AdmissionContext = {
      ...base,
      certify: async (request, fields) => {
        rounds += 1;
        // Another process admits evidence for the same subject while our first round runs.
        if (rounds === 1) {
          const theirOutcome = await submitEvidence(theirs, stream, validBody(), base);
          if (theirOutcome.kind === 'admitted') theirHash = theirOutcome.artifact_hash;
        }
        return certifyAndSeal(base.validators, request, fields, base.authority);
      },
    };
    const outcome = await submitEvidence(
      ours,
      stream,
      { ...validBody(), replay_seed: 'b'.repeat(16) },
      context,
    );
    expect(outcome.kind).toBe('admitted');
    expect(rounds).toBe(2);
    const admitted = await admissions();
    expect(admitted).toHaveLength(2);
    expect(theirHash).toBeDefined();
    expect(admitted[0]!.artifact_hash).toBe(theirHash);
    expect(admitted[1]!.bundle.parent_bundle_hash).toBe(admitted[0]!.artifact_hash);
  });

  it('given a validator round that is slow, then another command of the same tenant is decided and appended meanwhile', async () => {
    const writer = new AggregateWriter(store, tenantAggregate);
    let release = () => {};
    const hold = new Promise<void>((resolve) => {
      release = resolve;
    });
    const { context, rounds } = countingContext(hold);
    const admission = submitEvidence(writer, stream, validBody(), context);
    while (rounds.count === 0) await new Promise((resolve) => setImmediate(resolve));
    const rotated = await writer.execute(stream, (state) => decideRotateKey(state, keyContext));
    expect(rotated.kind).toBe('rotated');
    expect(await types()).toEqual(['TenantRegistered', 'ApiKeyRotated']);
    release();
    expect((await admission).kind).toBe('admitted');
    expect(await types()).toEqual(['TenantRegistered', 'ApiKeyRotated', 'EvidenceAdmitted']);
  });

  async function types(): Promise<string[]> {
    const found: string[] = [];
    for await (const event of store.readStream(stream)) found.push(event.type);
    return found;
  }

  async function admissions(): Promise<EvidenceAdmitted[]> {
    const found: EvidenceAdmitted[] = [];
    for await (const event of store.readStream(stream))
      if (event.type === 'EvidenceAdmitted') found.push(event.data as EvidenceAdmitted);
    return found;
  }
});

/** The store, counting the appends it refused for a stale expected revision. */
function countingConflicts(store: EventStore) {
  const conflicts = { count: 0 };
  const observed = observeAppends(store, () => undefined);
  observed.append = (stream, events, options) =>
    store.append(stream, events, options).catch((error: unknown) => {
      if (error instanceof WrongExpectedVersionError) conflicts.count += 1;
      throw error;
    });
  return { store: observed, conflicts };
}
