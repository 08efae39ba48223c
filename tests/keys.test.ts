/**
 * Acceptance: `gov keys rotate` through the real CLI between two runs of a server on one data folder.
 * After a rotation the server signs with the new keys, and everything signed before (tree heads,
 * envelopes, certificates) still verifies under the retired keys that `gov keys show --json` and
 * GET /gov/v1/log/keys publish.
 */
import { createPublicKey, type KeyObject } from 'node:crypto';
import { verifyEnvelope } from '../domain/governance/envelope';
import { verifyCertificate } from '../domain/governance/validators';
import { type JsonSth, verifySth } from '../domain/log';
import type { GovernanceEnvelope, TreeHeadSigned, ValidatorCertificate } from '../event-schemas';
import {
  fromHex,
  loadVerifierKey,
  type VerifierKey,
  verifyCheckpoint,
  verifyConsistency,
} from '../merkle-core';
import { collect } from '../ports/contract/event-store.contract';
import { LOG_STREAM } from '../projectors/log/log-sequencer';
import type { PublishedKeys } from '../runtime/keys/key-history';
import { runGov } from './support/children';
import {
  type AdmittedEvidence,
  MINUTE_MS,
  type Registration,
  setTier,
  startTestServer,
  type TestServer,
} from './support/governance-client';

interface KeysAnswer {
  log: string;
  authority: { node_id: string; public_key_spki: string };
  validators: { validator_id: string; public_key_spki: string }[];
  retired: {
    log: { verifier_key: string; retired_at: string }[];
    authority: { node_id: string; public_key_spki: string; retired_at: string }[];
    validators: { validator_id: string; public_key_spki: string; retired_at: string }[];
  };
}

interface ReportAnswer {
  certificate: ValidatorCertificate;
  envelope: GovernanceEnvelope;
}

const spki = (base64: string): KeyObject =>
  createPublicKey({ key: Buffer.from(base64, 'base64'), format: 'der', type: 'spki' });

describe('gov keys rotate between two runs of a server', () => {
  let t: TestServer;
  let tenant: Registration;
  const admitted: AdmittedEvidence[] = [];

  const gov = (...args: string[]) => runGov(args, { dataDir: t.dataDir });

  const publishedKeys = async (): Promise<PublishedKeys> => {
    const run = await gov('keys', 'show', '--json');
    expect({ code: run.code, stderr: run.stderr }).toEqual({ code: 0, stderr: '' });
    return JSON.parse(run.stdout) as PublishedKeys;
  };
  const keysAnswer = async (): Promise<KeysAnswer> => {
    const res = await t.client.get<KeysAnswer>('/gov/v1/log/keys');
    expect(res.status).toBe(200);
    return res.body;
  };
  const sthAt = async (size: number): Promise<JsonSth> => {
    const res = await t.client.get<JsonSth>(`/gov/v1/log/sth?tree_size=${size}`);
    expect(res.status).toBe(200);
    expect(res.body.tree_size).toBe(size);
    return res.body;
  };
  const latestSth = async (): Promise<JsonSth> => (await t.client.get<JsonSth>('/gov/v1/log/sth')).body;
  const treeHeadEvents = async (): Promise<TreeHeadSigned[]> =>
    (await collect(t.server.services.eventStore.readStream(LOG_STREAM))).map((e) => e.data as TreeHeadSigned);
  const admit = async (count: number) => {
    for (let i = 0; i < count; i++) {
      t.clock.advance(MINUTE_MS);
      admitted.push(await t.client.admit(tenant.api_key));
    }
  };
  const verifies = async (sth: JsonSth, key: VerifierKey) => (await verifySth(sth, key)).ok;

  beforeAll(async () => {
    t = await startTestServer('gov-keys-rotation');
    tenant = await t.client.register();
    // L2: more leaves than the trial's five.
    await setTier(t.server, tenant.tenant_id, 'L2');
    await admit(3);
  });
  afterAll(async () => {
    await t?.dispose();
  });

  describe('the log key', () => {
    let oldKey: VerifierKey;
    let newKey: VerifierKey;
    /** The latest tree size signed with the old key. */
    let sizeAtRotation: number;

    it('given the server runs, when `gov keys rotate log` runs, then it exits 1 saying to stop the server, and changes nothing', async () => {
      oldKey = loadVerifierKey((await keysAnswer()).log);
      const run = await gov('keys', 'rotate', 'log');
      expect(run.code).toBe(1);
      expect(run.stderr).toMatch(/a running server \(pid \d+.*Stop the server/s);
      expect((await publishedKeys()).log).toEqual([{ verifier_key: oldKey.text, status: 'current' }]);
    });

    it('given the server is stopped, when `gov keys rotate log` runs, then it exits 0 naming the retired and the new key and asking for a start', async () => {
      sizeAtRotation = (await latestSth()).tree_size;
      await t.stop();
      const run = await gov('keys', 'rotate', 'log');
      expect({ code: run.code, stderr: run.stderr }).toEqual({ code: 0, stderr: '' });
      expect(run.stdout).toContain(`retired  ${oldKey.text}`);
      expect(run.stdout).toMatch(/start it/);
      newKey = loadVerifierKey(run.stdout.match(/current {2}(\S+)/)![1]!);
      expect(newKey.name).toBe(oldKey.name);
      expect(newKey.keyId).not.toEqual(oldKey.keyId);
    });

    it('when the server starts again, then the sequencer accepts the head signed with the retired key and serves it until the next admission', async () => {
      await t.start();
      const sth = await latestSth();
      expect(sth.tree_size).toBe(sizeAtRotation);
      expect(sth.log_id).toBe(oldKey.text);
      expect(await verifies(sth, oldKey)).toBe(true);
      expect((await keysAnswer()).log).toBe(newKey.text);
    });

    it('then new admissions are integrated and the next tree head verifies only under the new key', async () => {
      await admit(2);
      const sth = await latestSth();
      expect(sth.tree_size).toBe(sizeAtRotation + 2);
      expect(sth.log_id).toBe(newKey.text);
      expect(await verifies(sth, newKey)).toBe(true);
      expect(await verifies({ ...sth, log_id: oldKey.text }, oldKey)).toBe(false);
      const checkpoint = (await t.client.get('/gov/v1/log/checkpoint')).text;
      expect((await verifyCheckpoint(checkpoint, newKey)).ok).toBe(true);
      expect((await verifyCheckpoint(checkpoint, oldKey)).ok).toBe(false);
    });

    it('then `gov keys show --json` and GET /gov/v1/log/keys list the new key as current and the old one as retired', async () => {
      const published = await publishedKeys();
      expect(published.log).toEqual([
        { verifier_key: newKey.text, status: 'current' },
        { verifier_key: oldKey.text, status: 'retired', retired_at: expect.any(String) },
      ]);
      const answer = await keysAnswer();
      expect(answer.log).toBe(newKey.text);
      expect(answer.retired.log).toEqual([
        { verifier_key: oldKey.text, retired_at: published.log[1]!.retired_at },
      ]);
    });

    it('then every tree head signed before the rotation, served at its size, verifies under the retired key only', async () => {
      const retired = loadVerifierKey(
        (await publishedKeys()).log.find((k) => k.status === 'retired')!.verifier_key,
      );
      for (let size = 0; size <= sizeAtRotation; size++) {
        const sth = await sthAt(size);
        expect(sth.log_id).toBe(retired.text);
        expect(await verifies(sth, retired)).toBe(true);
        expect(await verifies({ ...sth, log_id: newKey.text }, newKey)).toBe(false);
      }
      for (const size of [sizeAtRotation + 1, sizeAtRotation + 2])
        expect(await verifies(await sthAt(size), newKey)).toBe(true);
    });

    it('then every TreeHeadSigned event verifies under the key of its time: the retired one up to the rotation, the new one after', async () => {
      const heads = await treeHeadEvents();
      expect(heads.map((h) => h.tree_size)).toEqual(Array.from({ length: sizeAtRotation + 3 }, (_, i) => i));
      for (const head of heads) {
        const [key, other] = head.tree_size <= sizeAtRotation ? [oldKey, newKey] : [newKey, oldKey];
        expect((await verifyCheckpoint(head.checkpoint, key)).ok).toBe(true);
        expect((await verifyCheckpoint(head.checkpoint, other)).ok).toBe(false);
      }
    });

    it('then the tree grew append-only across the rotation: the old head is consistent with the new one', async () => {
      const [before, after] = [await sthAt(sizeAtRotation), await latestSth()];
      const res = await t.client.get<{ proof: string[] }>(
        `/gov/v1/log/consistency?from=${before.tree_size}&to=${after.tree_size}`,
      );
      expect(res.status).toBe(200);
      const verdict = verifyConsistency(
        before.tree_size,
        after.tree_size,
        res.body.proof.map(fromHex),
        fromHex(before.root_hash),
        fromHex(after.root_hash),
      );
      expect(verdict).toEqual({ ok: true });
    });
  });

  describe('a validator key and the authority key', () => {
    let before: KeysAnswer;
    let published: PublishedKeys;
    let oldCount: number;

    const report = async (evidence: AdmittedEvidence): Promise<ReportAnswer> => {
      const res = await t.client.get<ReportAnswer>(
        `/governance/report/${evidence.artifact_hash}`,
        tenant.api_key,
      );
      expect(res.status).toBe(200);
      return res.body;
    };

    beforeAll(async () => {
      before = await keysAnswer();
      oldCount = admitted.length;
      await t.stop();
      for (const args of [
        ['rotate', 'validator', '--validator', '2'],
        ['rotate', 'authority'],
      ]) {
        const run = await gov('keys', ...args);
        expect({ code: run.code, stderr: run.stderr }).toEqual({ code: 0, stderr: '' });
      }
      await t.start();
      await admit(2);
      published = await publishedKeys();
    });

    it('then the published keys list validator 2 and the authority key as retired, the other validators unchanged', () => {
      const retiredValidators = published.validators.filter((v) => v.status === 'retired');
      expect(retiredValidators.map((v) => v.validator_id)).toEqual([before.validators[1]!.validator_id]);
      const current = published.validators.filter((v) => v.status === 'current').map((v) => v.validator_id);
      expect(current).toHaveLength(4);
      expect(current).not.toContain(before.validators[1]!.validator_id);
      expect([current[0], current[2], current[3]]).toEqual(
        [0, 2, 3].map((i) => before.validators[i]!.validator_id),
      );
      expect(published.authority.map((a) => [a.node_id, a.status])).toEqual([
        [expect.not.stringMatching(before.authority.node_id), 'current'],
        [before.authority.node_id, 'retired'],
      ]);
    });

    it('then GET /gov/v1/log/keys serves the same keys, current and retired', async () => {
      const answer = await keysAnswer();
      expect(answer.validators.map((v) => v.validator_id)).toEqual(
        published.validators.filter((v) => v.status === 'current').map((v) => v.validator_id),
      );
      expect(answer.retired.validators).toEqual([
        expect.objectContaining({ validator_id: before.validators[1]!.validator_id, algorithm: 'Ed25519' }),
      ]);
      expect(answer.authority.node_id).toBe(published.authority[0]!.node_id);
      expect(answer.retired.authority).toEqual([
        expect.objectContaining({
          node_id: before.authority.node_id,
          public_key_spki: before.authority.public_key_spki,
        }),
      ]);
    });

    it('then the certificates and envelopes of admissions before and after the rotation verify with the published keys', async () => {
      const validatorKeys = new Map(published.validators.map((v) => [v.validator_id, spki(v.public_key)]));
      const authorityKeys = new Map(published.authority.map((a) => [a.node_id, spki(a.public_key)]));
      for (const evidence of admitted) {
        const { certificate, envelope } = await report(evidence);
        expect(verifyCertificate(certificate, validatorKeys)).toEqual({ ok: true });
        const authority = authorityKeys.get(envelope.authority_node_id);
        expect(authority && verifyEnvelope(envelope, authority)).toBe(true);
      }
    });

    it('then the admissions before the rotation need the retired keys: under the current keys alone they do not verify', async () => {
      const validatorKeys = new Map(
        published.validators
          .filter((v) => v.status === 'current')
          .map((v) => [v.validator_id, spki(v.public_key)]),
      );
      const authority = published.authority.find((a) => a.status === 'current');
      for (const [index, evidence] of admitted.entries()) {
        const { certificate, envelope } = await report(evidence);
        const old = index < oldCount;
        expect(verifyCertificate(certificate, validatorKeys).ok).toBe(!old);
        expect(envelope.authority_node_id === authority!.node_id).toBe(!old);
        expect(verifyEnvelope(envelope, spki(authority!.public_key))).toBe(!old);
      }
    });
  });
});
