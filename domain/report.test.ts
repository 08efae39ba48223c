import { createHash, createPublicKey, type KeyObject } from 'node:crypto';
import type { ComplianceReport, ValidatorCertificate } from '../event-schemas';
import { validateRecord } from '../event-schemas';
import { canonicalJson, fromHex, leafHash, nodeHash, toHex, verifyInclusion } from '../merkle-core';
import { artifactHashOf } from './bundle';
import { authorityNodeIdOf, buildEnvelope, verifyEnvelope } from './envelope';
import { evaluateGates } from './gates';
import { DEFAULT_POLICY } from './policy';
import {
  buildComplianceReport,
  type ComplianceReportInput,
  ReportInconsistencyError,
  renderReportMarkdown,
} from './report';
import { ed25519Keys, legacyFormOf, validBody, voteRequest } from './test-fixtures';
import legacyVector from './test-vectors/legacy-certificate.json';
import { createLocalValidators, runValidatorRound, type VoteRequest, verifyCertificate } from './validators';

const [authorityKey, ...validatorKeys] = ed25519Keys(5) as [KeyObject, ...KeyObject[]];
const validators = createLocalValidators(validatorKeys);
const REPLAY_URL = 'https://gov.example/governance/replay/';

/** A two-leaf log whose second leaf is our envelope (certifying the bundle with `certify`). */
async function reportInput(
  certify: (request: VoteRequest) => Promise<ValidatorCertificate> = (request) =>
    runValidatorRound(validators, request),
): Promise<ComplianceReportInput> {
  const request = voteRequest();
  const certificate = await certify(request);
  const envelope = buildEnvelope(
    {
      bundle_hash: request.artifact_hash,
      payload_uri: REPLAY_URL + request.artifact_hash,
      tenant_id: request.bundle.tenant_id,
      subject_id: request.bundle.subject_id,
      certificate,
      log_binding: { log_id: 'gov.example/log+1a2b3c4d+AQID', log_url: 'https://log.gov.example' },
      generated_at: '2025-06-01T12:00:01.000Z',
    },
    { privateKey: authorityKey, nodeId: authorityNodeIdOf(createPublicKey(authorityKey)) },
  );
  const sibling = leafHash(Buffer.from('{"earlier":"leaf"}'));
  const ours = leafHash(Buffer.from(canonicalJson(envelope)));
  const evaluation = evaluateGates(validBody(), DEFAULT_POLICY);
  return {
    bundle: request.bundle,
    gate_details: evaluation.details,
    certificate,
    envelope,
    leaf_index: 1,
    sth: {
      log_id: 'gov.example/log+1a2b3c4d+AQID',
      tree_size: 2,
      root_hash: toHex(nodeHash(sibling, ours)),
      timestamp: '2025-06-01T12:00:02.000Z',
      log_signature: 'c2lnbmF0dXJl',
      witness_signatures: [{ name: 'witness.example', signature: 'd2l0bmVzcw==' }],
    },
    inclusion_proof: { leaf_index: 1, tree_size: 2, audit_path: [toHex(sibling)] },
    lifecycle: 'ACTIVE',
    observables: { H: 0.505, C: 0.505, E: 0.495 },
    admitted_at: '2025-06-01T12:00:01.000Z',
    replay_url: REPLAY_URL + request.artifact_hash,
  };
}

describe('the certificate counts in a compliance report', () => {
  const stored = legacyVector.certificate as ValidatorCertificate;
  it.each<[string, (request: VoteRequest) => Promise<ValidatorCertificate>, string]>([
    ['made now', (request) => runValidatorRound(validators, request), ''],
    [
      'stored by an earlier release',
      async () => stored,
      "; this earlier certificate's fields say quorum 4 and threshold 3",
    ],
    [
      'of the earlier form, made from this round',
      async (request) => legacyFormOf(await runValidatorRound(validators, request)),
      "; this earlier certificate's fields say quorum 4 and threshold 3",
    ],
  ])(
    'given a certificate %s, then the report keeps it as it is, validates, and says 4 validators with a quorum of 3',
    async (_, certify, note) => {
      const input = await reportInput(certify);
      const report = buildComplianceReport(input);
      expect(canonicalJson(report.certificate)).toBe(canonicalJson(input.certificate));
      expect(validateRecord('compliance-report', report)).toEqual({ ok: true, value: report });
      expect(report.verification_steps[5]).toContain(
        `at least 3 distinct ACCEPT votes (the quorum of its 4 validators${note}) carry body_hash ${report.artifact_hash}`,
      );
      expect(renderReportMarkdown(report)).toContain(
        `\n- Validators: 4; quorum (ACCEPT votes needed): 3; received: 4${note ? ` (${note.slice(2)})` : ''}\n`,
      );
    },
  );
});

describe('compliance report', () => {
  let input: ComplianceReportInput;
  let report: ComplianceReport;
  beforeAll(async () => {
    input = await reportInput();
    report = buildComplianceReport(input);
  });

  it('given an admitted bundle, then the report carries every part and validates against its schema', () => {
    expect(report).toMatchObject({
      type: 'GOV_COMPLIANCE_REPORT_V1',
      version: 1,
      tenant_id: input.bundle.tenant_id,
      subject_id: input.bundle.subject_id,
      artifact_hash: artifactHashOf(input.bundle),
      gate_results: input.bundle.gate_results,
      gate_details: input.gate_details,
      evidence: input.bundle.evidence,
      leaf: { leaf_index: 1 },
      sth: input.sth,
      inclusion_proof: input.inclusion_proof,
      certificate: input.certificate,
      envelope: input.envelope,
      lifecycle: 'ACTIVE',
      admitted_at: input.admitted_at,
      replay_url: input.replay_url,
    });
    expect(validateRecord('compliance-report', report)).toEqual({ ok: true, value: report });
  });

  it('given the report alone, when a third party follows its steps, then every check passes', () => {
    // 1: the bundle's hash (the bundle is what replay_url serves).
    expect(createHash('sha256').update(canonicalJson(input.bundle)).digest('hex')).toBe(report.artifact_hash);
    // 3: the leaf hash of the envelope's canonical JSON.
    const leaf = createHash('sha256')
      .update(Buffer.concat([Buffer.from([0]), Buffer.from(canonicalJson(report.envelope))]))
      .digest('hex');
    expect(report.leaf.leaf_hash).toBe(leaf);
    // 4: the audit path against the STH root.
    const verdict = verifyInclusion(
      report.inclusion_proof.leaf_index,
      report.inclusion_proof.tree_size,
      fromHex(report.leaf.leaf_hash),
      report.inclusion_proof.audit_path.map(fromHex),
      fromHex(report.sth.root_hash),
    );
    expect(verdict).toEqual({ ok: true });
    // 6, 7: validator votes and the authority signature.
    const keys = new Map(validators.map((v) => [v.id, v.publicKey]));
    expect(verifyCertificate(report.certificate, keys, 3)).toEqual({ ok: true });
    expect(verifyEnvelope(report.envelope, createPublicKey(authorityKey))).toBe(true);
  });

  it('the verification steps name the values to check and where the keys come from', () => {
    const steps = report.verification_steps.join('\n');
    expect(report.verification_steps).toHaveLength(7);
    for (const needle of [
      report.replay_url,
      report.artifact_hash,
      report.leaf.leaf_hash,
      report.sth.root_hash,
      'SHA-256(0x00 ‖ data)',
      'RFC 9162 §2.1.3.2',
      'GET /gov/v1/log/sth',
      'GET /gov/v1/log/keys',
      report.envelope.authority_node_id,
    ])
      expect(steps).toContain(needle);
  });

  it.each<[string, (i: ComplianceReportInput) => ComplianceReportInput]>([
    [
      'an envelope for another bundle',
      (i) => ({ ...i, envelope: { ...i.envelope, artifact_hash: '0'.repeat(64) } }),
    ],
    [
      'a certificate not named by the envelope',
      (i) => ({ ...i, envelope: { ...i.envelope, certificate_hash: '0'.repeat(64) } }),
    ],
    [
      'a proof for another tree size',
      (i) => ({ ...i, inclusion_proof: { ...i.inclusion_proof, tree_size: 3 } }),
    ],
    ['a proof for another leaf', (i) => ({ ...i, leaf_index: 0 })],
  ])('given %s, then no contradictory report is built', (_case, change) => {
    expect(() => buildComplianceReport(change(input))).toThrow(ReportInconsistencyError);
  });

  it('renders as Markdown with headings, a gate table, hashes in code spans and numbered steps', () => {
    const markdown = renderReportMarkdown(report);
    expect(markdown).toMatch(/^# Compliance report `[0-9a-f]{64}`$/m);
    for (const heading of [
      '## Gates',
      '## Evidence',
      '## Transparency log',
      '## Validator certificate',
      '## How to verify this report',
    ])
      expect(markdown).toContain(`\n${heading}\n`);
    expect(markdown).toContain('| Gate | Result | What was checked |');
    expect(markdown).toContain(`| G1 | PASS | ${report.gate_details.G1} |`);
    expect(markdown).toContain(`\`${report.leaf.leaf_hash}\``);
    expect(markdown).toContain(`\`${report.certificate.cert_hash}\``);
    expect(markdown).toContain(`1. ${report.verification_steps[0]}`);
    expect(markdown).toContain(`7. ${report.verification_steps[6]}`);
  });

  it('given values with pipes or backticks, then the Markdown table and code spans stay intact', () => {
    const odd = { ...report, subject_id: 'a|b`c', gate_details: { ...report.gate_details, G2: 'x | y' } };
    const markdown = renderReportMarkdown(odd);
    expect(markdown).toContain('| Subject | `` a\\|b`c `` |');
    expect(markdown).toContain('| G2 | PASS | x \\| y |');
  });
});
