import { createPublicKey, type KeyObject } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { SqliteEventStore } from '../adapters/sqlite/event-store';
import { artifactHashOf } from '../domain/governance/bundle';
import { verifyCertificate } from '../domain/governance/certificate';
import { verifyEnvelope } from '../domain/governance/envelope';
import { leafHashOfRecord } from '../domain/log';
import type { EvidenceAdmitted, ExecutionAdmitted, TreeHeadSigned, VarianceRecorded } from '../event-schemas';
import { EMPTY_ROOT, fromHex, loadVerifierKey, nodeHash, toHex, verifyCheckpoint } from '../merkle-core';
import type { RecordedEvent } from '../ports/event-store';
import { ADMISSION_EVENT_TYPES, LEAF_RECORD_MEMBER, LOG_STREAM } from '../projectors/log/log-sequencer';
import { readPublishedKeys } from '../runtime/keys/key-history';
import { tempDir } from '../tests/support/temp-dir';
import {
  type AuditFixture,
  auditFixtureDir,
  auditLeavesFromEnv,
  DEFAULT_AUDIT_LEAVES,
  ensureAuditFixture,
  MANIFEST_FILE,
} from './audit-fixture';
import {
  EXECUTION_EVERY,
  GATE_FAILURE_EVERY,
  nextRequestKind,
  tenantQuotas,
  tenantsOfThread,
} from './audit-fixture-plan';

/** Two tenants, one per signing thread. */
const LEAVES = 1500;

/** RFC 9162 §2.1.1 Merkle tree hash, straight from the definition (not the sequencer's TileLog). */
function merkleTreeHash(leaves: readonly Uint8Array[]): Uint8Array {
  if (leaves.length === 0) return EMPTY_ROOT;
  if (leaves.length === 1) return leaves[0]!;
  let split = 1;
  while (split * 2 < leaves.length) split *= 2;
  return nodeHash(merkleTreeHash(leaves.slice(0, split)), merkleTreeHash(leaves.slice(split)));
}

const silent = { write: () => true } as unknown as NodeJS.WriteStream;

async function readEvents(file: string): Promise<RecordedEvent[]> {
  const store = new SqliteEventStore({ file });
  const events: RecordedEvent[] = [];
  for await (const event of store.readAll()) events.push(event);
  await store.close();
  return events;
}

function keysOf(keysDir: string) {
  const published = readPublishedKeys(keysDir);
  const spki = (base64: string): KeyObject =>
    createPublicKey({ key: Buffer.from(base64, 'base64'), format: 'der', type: 'spki' });
  return {
    logKey: loadVerifierKey(published.log[0]!.verifier_key),
    authority: spki(published.authority[0]!.public_key),
    validators: new Map(published.validators.map((v) => [v.validator_id, spki(v.public_key)])),
  };
}

describe('the audit fixture plan', () => {
  it('shares the leaves among about one tenant per thousand leaves, exactly', () => {
    expect(tenantQuotas(1)).toEqual([1]);
    expect(tenantQuotas(1500)).toEqual([750, 750]);
    const quotas = tenantQuotas(1_000_001);
    expect(quotas).toHaveLength(1000);
    expect(quotas.reduce((a, b) => a + b, 0)).toBe(1_000_001);
    expect(Math.max(...quotas) - Math.min(...quotas)).toBeLessThanOrEqual(1);
    expect(() => tenantQuotas(0)).toThrow(/≥ 1/);
  });

  it('gives every tenant to exactly one signing thread', () => {
    const owned = [0, 1, 2].flatMap((thread) => tenantsOfThread(10, thread, 3));
    expect(owned.sort((a, b) => a - b)).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8, 9]);
  });

  it('sends mostly evidence, a gate failure now and then, and executions only when two leaves are left', () => {
    const at = (requests: number, leavesLeft = 10, hasUnexecutedAuthorization = true) =>
      nextRequestKind({ requests, leavesLeft, hasUnexecutedAuthorization });
    expect(at(0)).toBe('evidence');
    expect(at(GATE_FAILURE_EVERY - 1)).toBe('failing-evidence');
    expect(at(EXECUTION_EVERY - 1)).toBe('execution');
    expect(at(EXECUTION_EVERY - 1, 1)).toBe('evidence');
    expect(at(EXECUTION_EVERY - 1, 10, false)).toBe('evidence');
  });

  it('reads N from GOV_BENCH_AUDIT_LEAVES, a million by default', () => {
    expect(auditLeavesFromEnv({})).toBe(DEFAULT_AUDIT_LEAVES);
    expect(auditLeavesFromEnv({ GOV_BENCH_AUDIT_LEAVES: '100_000' })).toBe(100_000);
    expect(() => auditLeavesFromEnv({ GOV_BENCH_AUDIT_LEAVES: '1e3x' })).toThrow(/GOV_BENCH_AUDIT_LEAVES/);
  });
});

describe(`an audit fixture of ${LEAVES} leaves`, () => {
  let root: ReturnType<typeof tempDir>;
  let fixture: AuditFixture;
  let events: RecordedEvent[];

  beforeAll(async () => {
    root = tempDir('gov-audit-fixture-test');
    fixture = await ensureAuditFixture({ leaves: LEAVES, root: root.dir, threads: 2, out: silent });
    events = await readEvents(fixture.eventStoreFile);
  });
  afterAll(() => root.remove());

  const admissions = () => events.filter((e) => (ADMISSION_EVENT_TYPES as string[]).includes(e.type));
  const treeHeads = () =>
    events.filter((e) => e.type === 'TreeHeadSigned') as RecordedEvent<TreeHeadSigned>[];

  it('is built under its versioned name and describes itself in a manifest', () => {
    expect(fixture.built).toBe(true);
    expect(fixture.dir).toBe(auditFixtureDir(LEAVES, root.dir));
    expect(fixture.manifest).toMatchObject({
      leaves: LEAVES,
      tenants: 2,
      events: events.length,
      tree_heads: treeHeads().length,
    });
    expect(fixture.bytes).toBeGreaterThan(fs.statSync(fixture.eventStoreFile).size - 1);
    expect(fs.readdirSync(root.dir)).toEqual([path.basename(fixture.dir)]);
  });

  it('holds exactly N admissions, whose leaf hashes are the RFC 9162 hashes of their records', () => {
    const leaves = admissions();
    expect(leaves).toHaveLength(LEAVES);
    for (const event of leaves) {
      const data = event.data as Record<string, unknown> & { leaf_hash: string };
      const record = data[LEAF_RECORD_MEMBER[event.type as keyof typeof LEAF_RECORD_MEMBER]];
      expect(toHex(leafHashOfRecord(record))).toBe(data.leaf_hash);
    }
  });

  it('signs every envelope with the authority key and certifies every bundle with a quorum of the four validators', () => {
    const keys = keysOf(fixture.keysDir);
    expect(keys.validators.size).toBe(4);
    const evidence = events.filter((e) => e.type === 'EvidenceAdmitted') as RecordedEvent<EvidenceAdmitted>[];
    expect(evidence.length).toBeGreaterThan(LEAVES / 2);
    for (const { data } of evidence) {
      expect(verifyEnvelope(data.envelope, keys.authority)).toBe(true);
      expect(verifyCertificate(data.certificate, keys.validators, 3)).toEqual({ ok: true });
      expect(data.certificate.votes).toHaveLength(4);
      expect(data.artifact_hash).toBe(artifactHashOf(data.bundle));
      expect(data.envelope.artifact_hash).toBe(data.artifact_hash);
      expect(data.envelope.certificate_hash).toBe(data.certificate.cert_hash);
      expect(data.envelope.log_binding.log_id).toBe(keys.logKey.text);
    }
  });

  it('chains each subject’s bundles and binds every execution and variance to an admitted authorization', () => {
    const last = new Map<string, string>();
    const authorizations = new Set<string>();
    for (const event of events) {
      if (event.type === 'EvidenceAdmitted') {
        const { bundle, artifact_hash, leaf_hash } = event.data as EvidenceAdmitted;
        const subject = `${bundle.tenant_id}/${bundle.subject_id}`;
        expect(bundle.parent_bundle_hash).toBe(last.get(subject) ?? null);
        last.set(subject, artifact_hash);
        authorizations.add(leaf_hash);
      } else if (event.type === 'ExecutionAdmitted') {
        expect(authorizations.has((event.data as ExecutionAdmitted).trace.parent_auth_leaf_hash)).toBe(true);
      } else if (event.type === 'VarianceRecorded') {
        expect(authorizations.has((event.data as VarianceRecorded).record.parent_auth_leaf_hash)).toBe(true);
      }
    }
    const count = (type: string) => events.filter((e) => e.type === type).length;
    expect(count('ExecutionAdmitted')).toBeGreaterThan(0);
    expect(count('VarianceRecorded')).toBe(count('ExecutionAdmitted'));
    expect(count('GateFailed')).toBeGreaterThan(0);
  });

  it('registers every tenant and lifts its limits in the shared log before its first request', () => {
    const byStream = new Map<string, string[]>();
    for (const event of events) {
      if (!event.stream.startsWith('tenant-')) continue;
      byStream.set(event.stream, [...(byStream.get(event.stream) ?? []), event.type]);
    }
    expect(byStream.size).toBe(2);
    for (const types of byStream.values())
      expect(types.slice(0, 2)).toEqual(['TenantRegistered', 'TenantTierChanged']);
  });

  it('has tree heads from the log sequencer, between the admissions, each verifying and covering its batch', async () => {
    const { logKey } = keysOf(fixture.keysDir);
    const heads = treeHeads();
    const leafHashes = admissions().map((e) => fromHex((e.data as { leaf_hash: string }).leaf_hash));
    const positions = admissions().map((e) => e.position);
    expect(heads.every((h) => h.stream === LOG_STREAM)).toBe(true);
    expect(heads[0]!.data.tree_size).toBe(0);
    expect(heads.at(-1)!.data.tree_size).toBe(LEAVES);
    // The sequencer followed the appends: heads are interleaved with admissions, not all at the end.
    expect(heads.filter((h) => h.position < positions.at(-1)!).length).toBeGreaterThan(heads.length / 2);
    let size = 0;
    for (const { data, position } of heads) {
      const verdict = await verifyCheckpoint(data.checkpoint, logKey);
      expect(verdict.ok).toBe(true);
      expect(data.first_leaf_index).toBe(size);
      expect(data.leaf_positions).toEqual(positions.slice(size, data.tree_size));
      expect(data.leaf_positions.every((p) => p < position)).toBe(true);
      expect(data.root_hash).toBe(toHex(merkleTreeHash(leafHashes.slice(0, data.tree_size))));
      size = data.tree_size;
    }
  });

  it('is reused while complete and rebuilt when its manifest is missing', async () => {
    const again = await ensureAuditFixture({ leaves: LEAVES, root: root.dir, out: silent });
    expect(again.built).toBe(false);
    expect(again.manifest).toEqual(fixture.manifest);

    fs.rmSync(path.join(fixture.dir, MANIFEST_FILE));
    const rebuilt = await ensureAuditFixture({ leaves: LEAVES, root: root.dir, threads: 1, out: silent });
    expect(rebuilt.built).toBe(true);
    expect(rebuilt.manifest.built_at).not.toBe(fixture.manifest.built_at);
    expect(
      (await readEvents(rebuilt.eventStoreFile)).filter((e) => e.type === 'EvidenceAdmitted').length,
    ).toBe(events.filter((e) => e.type === 'EvidenceAdmitted').length);
  });
});
