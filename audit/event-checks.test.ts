import { canonicalHash } from '../domain/governance/hash';
import { signRecord, without } from '../domain/governance/signing';
import { legacyFormOf } from '../domain/governance/test-fixtures';
import { leafHashOfRecord } from '../domain/log';
import type { EvidenceAdmitted, ExecutionAdmitted, TreeHeadSigned, VarianceRecorded } from '../event-schemas';
import { fromHex, generateKeyPair, loadSignerKey, signCheckpoint, toHex } from '../merkle-core';
import type { RecordedEvent } from '../ports/event-store';
import { checkEvent } from './event-checks';
import { rawRowOf } from './event-facts';
import { SyntheticLog } from './synthetic-log';
import { type AuditTrust, prepareTrust } from './trust';

let log: SyntheticLog;
let evidence: RecordedEvent<EvidenceAdmitted>;
let execution: RecordedEvent<ExecutionAdmitted>;
let variance: RecordedEvent<VarianceRecorded>;
let treeHead: RecordedEvent<TreeHeadSigned>;

beforeAll(async () => {
  log = new SyntheticLog();
  evidence = await log.admitEvidence('tnt_a', 'model-1', { H: 0.6, C: 0.55, E: 0.4 });
  [execution, variance] = log.execute(evidence, 'DEVIATED');
  treeHead = log.signTreeHead();
});

/** A deep copy of `event` with `change` applied to its copy. */
function altered<T>(event: RecordedEvent<T>, change: (copy: RecordedEvent<T>) => void): RecordedEvent<T> {
  const copy = structuredClone(event);
  change(copy);
  return copy;
}

async function checksOf(event: RecordedEvent, trust: AuditTrust = log.trust): Promise<string[]> {
  const { findings } = await checkEvent(rawRowOf(event), prepareTrust(trust));
  return findings.map((f) => f.check);
}

/** Re-signs an altered envelope with the authority key and re-derives its leaf hash, as a forger with the key would. */
function resealEnvelope(event: RecordedEvent<EvidenceAdmitted>): void {
  const envelope = event.data.envelope;
  envelope.authority_signature = signRecord(
    without(envelope, 'authority_signature'),
    log.authority.privateKey,
  );
  event.data.leaf_hash = toHex(leafHashOfRecord(envelope));
}

describe('the checks of one EvidenceAdmitted', () => {
  it('given an admission as the service writes it, when checked, then nothing is found and its leaf hash and link facts come out', async () => {
    const { findings, facts, link } = await checkEvent(rawRowOf(evidence), prepareTrust(log.trust));
    expect(findings).toEqual([]);
    expect(toHex(facts.leaf!.hash!)).toBe(evidence.data.leaf_hash);
    expect(link).toEqual({
      kind: 'authorization',
      tenant: 'tnt_a',
      subject: 'model-1',
      observables: [0.6, 0.55, 0.4],
      policy: null,
    });
  });

  it('given a bundle changed after admission, when checked, then its hash no longer matches the stored hash, the envelope or the certificate', async () => {
    const changed = altered(evidence, (e) => {
      e.data.bundle.replay_seed = 'cafebabe';
    });
    expect(await checksOf(changed)).toEqual([
      'artifact-hash-mismatch',
      'envelope-mismatch',
      'certificate-mismatch',
    ]);
  });

  it('given a vote whose signature was altered, when checked, then the certificate fails and no longer matches the envelope', async () => {
    const changed = altered(evidence, (e) => {
      const vote = e.data.certificate.votes[1]!;
      vote.signature = `${vote.signature.slice(0, 10)}${vote.signature[10] === 'A' ? 'B' : 'A'}${vote.signature.slice(11)}`;
    });
    expect(await checksOf(changed)).toEqual(['certificate-invalid', 'certificate-mismatch']);
  });

  it('given a trust without the validator keys, when checked, then the certificate is reported as from unknown validators', async () => {
    const { findings } = await checkEvent(
      rawRowOf(evidence),
      prepareTrust({ ...log.trust, validatorPublicKeys: [] }),
    );
    expect(findings).toEqual([
      { check: 'certificate-invalid', message: expect.stringMatching(/unknown validator/) },
    ]);
  });

  /** `evidence` with its certificate replaced, re-hashed, named in the envelope and resealed. */
  function recertified(
    make: (certificate: EvidenceAdmitted['certificate']) => object,
  ): RecordedEvent<EvidenceAdmitted> {
    return altered(evidence, (e) => {
      const { cert_hash: _, ...unhashed } = make(e.data.certificate) as Record<string, unknown>;
      const certificate = { ...unhashed, cert_hash: canonicalHash(unhashed) };
      e.data.certificate = certificate as EvidenceAdmitted['certificate'];
      e.data.envelope.certificate_hash = certificate.cert_hash;
      resealEnvelope(e);
    });
  }

  it('given the certificate in the form earlier releases wrote (quorum = n, threshold), when checked, then nothing is found', async () => {
    const old = recertified(legacyFormOf);
    expect(old.data.certificate).toMatchObject({ quorum: 4, threshold: 3 });
    expect(await checksOf(old)).toEqual([]);
  });

  it.each([
    ['a quorum', (c: EvidenceAdmitted['certificate']) => ({ ...c, quorum: 2 })],
    ['an old-form threshold', (c: EvidenceAdmitted['certificate']) => ({ ...legacyFormOf(c), threshold: 2 })],
  ])(
    'given a certificate re-hashed and re-enveloped with %s below 2f + 1, when checked, then only that is reported',
    async (_, make) => {
      const changed = recertified(make);
      const { findings } = await checkEvent(rawRowOf(changed), prepareTrust(log.trust));
      expect(findings).toEqual([
        {
          check: 'certificate-threshold',
          message:
            'the certificate declares a quorum of 2 of 4 validators; Byzantine fault tolerance needs 3',
        },
      ]);
    },
  );

  it('given a certificate re-hashed and re-enveloped with a quorum above its validators, when checked, then it is invalid', async () => {
    const changed = recertified((c) => ({ ...c, quorum: 5 }));
    const { findings } = await checkEvent(rawRowOf(changed), prepareTrust(log.trust));
    expect(findings).toEqual([
      {
        check: 'certificate-invalid',
        message: 'the validator certificate fails: the certificate declares a quorum of 5 of 4 validators',
      },
    ]);
  });

  it('given a certificate mixing both forms (validators and threshold), when checked, then its schema is reported', async () => {
    expect(await checksOf(recertified((c) => ({ ...c, threshold: 3 })))).toEqual(['event-schema']);
  });

  it('given an envelope changed after signing, when checked, then its signature and its leaf hash are reported', async () => {
    const changed = altered(evidence, (e) => {
      e.data.envelope.payload_uri = 'https://elsewhere.example/bundle';
    });
    expect(await checksOf(changed)).toEqual(['envelope-signature', 'leaf-hash-mismatch']);
  });

  it('given a trust without the authority key, when checked, then the authority is reported unknown', async () => {
    expect(await checksOf(evidence, { ...log.trust, authorityPublicKeys: [] })).toEqual([
      'envelope-authority-unknown',
    ]);
  });

  it('given a trust with another log key, when checked, then the envelope binding to the real log is reported', async () => {
    const other = loadSignerKey(generateKeyPair('audit.example/log').signerKey).verifierKey;
    expect(await checksOf(evidence, { ...log.trust, logVerifierKeys: [other] })).toEqual([
      'envelope-log-binding',
    ]);
  });

  it('given an event filed under another tenant, when checked, then the tenants are reported', async () => {
    expect(
      await checksOf(
        altered(evidence, (e) => {
          e.tenant_id = 'tnt_b';
        }),
      ),
    ).toEqual(['tenant-mismatch']);
  });
});

describe('the checks every event gets', () => {
  it('given data that is not JSON, when checked, then it is reported and an admission has no leaf hash', async () => {
    const row = rawRowOf(evidence);
    row[10] = `#${row[10].slice(1)}`;
    const { findings, facts } = await checkEvent(row, prepareTrust(log.trust));
    expect(findings.map((f) => f.check)).toEqual(['json-invalid']);
    expect(facts.leaf).toEqual({ hash: null });
  });

  it('given metadata that breaks the recorded-event schema, when checked, then it is reported', async () => {
    const { findings } = await checkEvent(
      rawRowOf(
        altered(evidence, (e) => {
          e.id = 'not-a-uuid';
        }),
      ),
      prepareTrust(log.trust),
    );
    expect(findings).toEqual([
      { check: 'event-schema', message: expect.stringMatching(/metadata .*\/id must be a valid uuid/) },
    ]);
  });

  it('given data missing a required member, when checked, then the schema is reported and the tree still gets the leaf hash of the admitted record', async () => {
    const changed = altered(evidence, (e) => void delete (e.data as Partial<EvidenceAdmitted>).gate_details);
    const { findings, facts } = await checkEvent(rawRowOf(changed), prepareTrust(log.trust));
    expect(findings).toEqual([
      { check: 'event-schema', message: expect.stringMatching(/\/gate_details is required/) },
    ]);
    expect(toHex(facts.leaf!.hash!)).toBe(evidence.data.leaf_hash);
  });

  it('given a type the service does not write, when checked, then it is reported', async () => {
    expect(
      await checksOf(
        altered(evidence, (e) => {
          e.type = 'EvidenceTeleported';
        }),
      ),
    ).toEqual(['unknown-event-type']);
  });
});

describe('the checks of one execution and one variance record', () => {
  it('given them as the service writes them, when checked, then nothing is found and their link facts come out', async () => {
    const trust = prepareTrust(log.trust);
    const exec = await checkEvent(rawRowOf(execution), trust);
    const vari = await checkEvent(rawRowOf(variance), trust);
    expect([...exec.findings, ...vari.findings]).toEqual([]);
    expect(exec.link).toMatchObject({ kind: 'execution', parentAuth: evidence.data.leaf_hash });
    expect(vari.link).toMatchObject({
      kind: 'variance',
      parentAuth: evidence.data.leaf_hash,
      parentExec: execution.data.leaf_hash,
      authState: [0.6, 0.55, 0.4],
    });
  });

  it('given a trace naming another tenant, when checked, then the tenants and its leaf hash are reported', async () => {
    const changed = altered(execution, (e) => {
      e.data.trace.tenant_id = 'tnt_b';
    });
    expect(await checksOf(changed)).toEqual(['tenant-mismatch', 'leaf-hash-mismatch']);
  });

  it('given a variance record whose distance and class were edited (and its leaf hash re-derived), when checked, then the arithmetic is reported, naming what is wrong', async () => {
    const changed = altered(variance, (e) => {
      e.data.record.l2_distance = 0.01;
      e.data.record.classification = 'NOMINAL';
      e.data.leaf_hash = toHex(leafHashOfRecord(e.data.record));
    });
    const { findings } = await checkEvent(rawRowOf(changed), prepareTrust(log.trust));
    expect(findings).toEqual([
      {
        check: 'variance-arithmetic',
        message: expect.stringMatching(/l2_distance, classification are wrong/),
      },
    ]);
  });
});

describe('the checks of one TreeHeadSigned', () => {
  it('given a tree head as the sequencer signs it, when checked, then nothing is found and its facts come out', async () => {
    const { findings, facts } = await checkEvent(rawRowOf(treeHead), prepareTrust(log.trust));
    expect(findings).toEqual([]);
    expect(facts.tree_head).toMatchObject({ treeSize: 3, firstLeafIndex: 0, leafPositions: [1, 2, 3] });
  });

  it('given a tree_size that is not first_leaf_index plus its leaves, when checked, then the size and the checkpoint disagreeing are reported', async () => {
    expect(
      await checksOf(
        altered(treeHead, (e) => {
          e.data.tree_size = 4;
        }),
      ),
    ).toEqual(['sth-size', 'sth-checkpoint-mismatch']);
  });

  it('given a root_hash field that is not the signed one, when checked, then the checkpoint disagreeing is reported', async () => {
    const changed = altered(treeHead, (e) => {
      e.data.root_hash = '0'.repeat(64);
    });
    const { findings } = await checkEvent(rawRowOf(changed), prepareTrust(log.trust));
    expect(findings).toEqual([
      {
        check: 'sth-checkpoint-mismatch',
        tree_size: 3,
        message: expect.stringMatching(/^the signed checkpoint says root /),
      },
    ]);
  });

  it('given a checkpoint signed by another key of the log name, when checked, then the signature is reported', async () => {
    const impostor = loadSignerKey(generateKeyPair(log.logSigner.name).signerKey);
    const changed = altered(treeHead, (e) => {
      e.data.checkpoint = signCheckpoint(
        {
          origin: impostor.name,
          size: e.data.tree_size,
          rootHash: fromHex(e.data.root_hash),
          extensions: [`timestamp ${e.data.timestamp}`],
        },
        impostor,
      );
    });
    expect(await checksOf(changed)).toEqual(['sth-signature']);
  });
});
