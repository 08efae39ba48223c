import { createHash, createPublicKey, type KeyObject } from 'node:crypto';
import fc from 'fast-check';
import MarkdownIt, { type Token } from 'markdown-it';
import type { ComplianceReport, ValidatorCertificate } from '../../event-schemas';
import { validateRecord } from '../../event-schemas';
import { canonicalJson, fromHex, leafHash, nodeHash, toHex, verifyInclusion } from '../../merkle-core';
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

/**
 * A reader of the Markdown: CommonMark with GFM tables and autolinks, raw HTML allowed (what a
 * permissive viewer renders). Bare domains are left alone, as GFM does; `www.` is checked by example.
 */
const reader = new MarkdownIt({ html: true, linkify: true });
reader.linkify.set({ fuzzyLink: false });

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
    log: { name: 'test', url: 'https://gov.example/gov/v1/logs/test' },
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
      'GET https://gov.example/gov/v1/logs/test/sth (the test log, which the leaf is in)',
      'GET /gov/v1/log/keys',
      report.envelope.authority_node_id,
    ])
      expect(steps).toContain(needle);
  });

  it('a leaf of the shared log: the step names its tree heads as reports did before there were many logs', () => {
    const shared = buildComplianceReport({
      ...input,
      log: { name: 'shared', url: 'https://gov.example/gov/v1/log' },
    });
    expect(shared.leaf).toMatchObject({ log: 'shared', log_url: 'https://gov.example/gov/v1/log' });
    expect(shared.verification_steps[4]).toBe(
      "Verify the signed tree head's log_signature with the log key named by log_id, as published by GET /gov/v1/log/sth at https://log.gov.example; check any witness_signatures with the keys of the witnesses you trust.",
    );
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
    const steps = reader
      .parse(markdown, {})
      .filter((token) => token.type === 'inline')
      .slice(-7);
    expect(steps.map((step) => step.children?.map((child) => child.content).join(''))).toEqual(
      report.verification_steps,
    );
  });

  it('given values with pipes or backticks, then the Markdown table stays intact', () => {
    const odd = { ...report, subject_id: 'a|b`c', gate_details: { ...report.gate_details, G2: 'x | y' } };
    const markdown = renderReportMarkdown(odd);
    expect(markdown).toContain('| Subject | a&#124;b\\`c |');
    expect(markdown).toContain('| G2 | PASS | x &#124; y |');
  });

  describe('Markdown of caller-supplied values', () => {
    /** Where each caller-supplied string lands: the report with it, and how to find it again. */
    const placements: {
      field: string;
      place: (value: string) => ComplianceReport;
      /** What a reader should see in the inline that carries it. */
      shown: (value: string) => string;
      find: (inlines: Token[]) => Token | undefined;
    }[] = [
      {
        field: 'subject_id',
        place: (value) => ({ ...report, subject_id: value }),
        shown: (value) => value,
        find: (inlines) => cellAfter(inlines, 'Subject'),
      },
      ...(['G4', 'G5'] as const).map((gate) => ({
        field: gate === 'G5' ? 'G5 operator_id' : 'G4 evidence_class',
        place: (value: string) => ({
          ...report,
          gate_details: { ...report.gate_details, [gate]: gateDetail(gate, value) },
        }),
        shown: (value: string) => gateDetail(gate, value),
        find: (inlines: Token[]) => cellAfter(inlines, gate, 2),
      })),
      {
        field: 'G1 result',
        place: (value) => ({
          ...report,
          gate_results: {
            ...report.gate_results,
            G1: { ...(report.gate_results.G1 as object), result: value },
          },
        }),
        shown: (value) => value,
        find: (inlines) => cellAfter(inlines, 'G1'),
      },
      {
        field: 'a witness name',
        place: (value) => ({
          ...report,
          sth: { ...report.sth, witness_signatures: [{ name: value, signature: 'c2ln' }] },
        }),
        shown: (value) => `Witness signatures: ${value}`,
        find: (inlines) => inlines.find((inline) => inline.content.startsWith('Witness signatures: ')),
      },
      {
        field: 'a verification step',
        place: (value) => ({ ...report, verification_steps: [value] }),
        shown: (value) => value,
        find: (inlines) => inlines.at(-1),
      },
    ];

    /** The evidence's own gate wording for `value` in the gate's free-text field. */
    const gateDetail = (gate: 'G4' | 'G5', value: string): string => {
      const body = validBody();
      if (gate === 'G5') body.gate_results.G5.operator_id = value;
      else body.gate_results.G4.evidence_class = value;
      return evaluateGates(body, DEFAULT_POLICY).details[gate] ?? '';
    };

    const inlinesOf = (markdown: string) =>
      reader.parse(markdown, {}).filter((token) => token.type === 'inline');
    const blocksOf = (markdown: string) =>
      reader
        .parse(markdown, {})
        .map((token) => token.type)
        .join(' ');
    /** The text a reader sees; anything but text and code spans (a tag, link, image, emphasis) fails. */
    const readBack = (inline: Token): string => {
      const children = inline.children ?? [];
      expect(children.filter((child) => child.type !== 'text' && child.type !== 'code_inline')).toEqual([]);
      return children.map((child) => child.content).join('');
    };
    /** HTML elements in the rendering, but code spans (a value is in one only when it is plain). */
    const tags = (markdown: string) => (reader.render(markdown).match(/<(?!\/?code>)/g) ?? []).length;

    const HOSTILE = [
      '<script>alert(1)</script>',
      '<img src=x onerror=alert(1)>',
      '"><svg onload=alert(1)>',
      "' onmouseover='alert(1)",
      '&lt;script&gt; &amp; &#60;',
      '[click](javascript:alert(1))',
      '![pixel](https://evil.example/p.png)',
      '<https://evil.example>',
      'https://evil.example/x and //evil.example and www.evil.example and me@evil.example',
      '`code` ``more``',
      '*em* **strong** _em_ __strong__ ~~struck~~',
      'a | b | c',
      'line\n# heading\n- item\n| x | y |\n```\nfence',
      'carriage\rreturn\r\n',
      '  leading and trailing spaces  ',
      '\ttabbed\t',
      'back\\slash\\',
      '\\<b>escaped?</b>',
      '\u00a0no-break\u3000',
      // At a line's start (a verification step opens its list item): block syntax.
      '+',
      '- item',
      '2. item',
      '3) item',
      '---',
      '> quote',
      '    indented code',
      '=== ',
    ];
    const ALPHABET = [...'<>&"\'`*_[]()!#|~\\/:.@=+-w \t\n\r aZ09é\u00a0\u2028😀'];
    // An empty value is not hostile, and empties a list item of its paragraph.
    const values = fc
      .oneof(
        fc.constantFrom(...HOSTILE),
        fc.string({ unit: fc.constantFrom(...ALPHABET), maxLength: 40 }),
        // C0 controls other than tab and line breaks never reach the report from a caller (identifiers
        // exclude them, the gate wording quotes values as JSON) and have no Markdown meaning.
        fc
          .string({ unit: 'grapheme', maxLength: 20 })
          .filter((value) => [...value].every((char) => !isControl(char) || '\t\n\r'.includes(char))),
      )
      .filter((value) => value !== '');

    it.each(placements.map((p) => [p.field, p] as const))(
      'given any string as %s, then the Markdown has no raw < from it, keeps its structure, and reads back as the original',
      (_field, placement) => {
        const plain = renderReportMarkdown(placement.place('plain'));
        fc.assert(
          fc.property(values, (value) => {
            const markdown = renderReportMarkdown(placement.place(value));
            expect(markdown.split('<').length).toBe(plain.split('<').length);
            expect(blocksOf(markdown)).toBe(blocksOf(plain));
            expect(tags(markdown)).toBe(tags(plain));
            const inline = placement.find(inlinesOf(markdown));
            expect(inline).toBeDefined();
            expect(readBack(inline!)).toBe(placement.shown(value));
          }),
          { numRuns: 300 },
        );
      },
    );

    it('given the operator_id of the audit, then the G5 line carries it as text, not as a script', () => {
      const markdown = renderReportMarkdown(placements[2]!.place('<script>alert(1)</script>'));
      const g5 = markdown.split('\n').find((line) => line.startsWith('| G5 |'));
      expect(g5).toBe(
        '| G5 | PASS | operator_id &quot;&lt;script&gt;alert(1)&lt;/script&gt;&quot; is non-empty (the policy allows any operator) |',
      );
    });

    it('given www. in a value, then it cannot become a GFM autolink', () => {
      const markdown = renderReportMarkdown({ ...report, subject_id: 'see www.evil.example' });
      expect(markdown).toContain('| Subject | see www\\.evil.example |');
    });
  });
});

function isControl(char: string): boolean {
  const code = char.codePointAt(0)!;
  return code < 0x20 || code === 0x7f;
}

/** The `n`th table cell after the cell that reads `label`. */
function cellAfter(inlines: Token[], label: string, n = 1): Token | undefined {
  const at = inlines.findIndex((inline) => inline.content === label);
  return at < 0 ? undefined : inlines[at + n];
}
