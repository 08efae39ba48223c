/** The compliance report as a Markdown document a person can read, print or attach to an audit. */
import type { ComplianceReport, ValidatorCertificate } from '../event-schemas';
import { certificateCounts, earlierFormNote } from './certificate';

const GATES = ['G1', 'G2', 'G3', 'G4', 'G5'] as const;

export function renderReportMarkdown(report: ComplianceReport): string {
  const { sth, leaf, inclusion_proof: proof, certificate, envelope, observables } = report;
  const lines = [
    `# Compliance report ${code(report.artifact_hash)}`,
    '',
    `${report.type}, version ${report.version}.`,
    '',
    '| Field | Value |',
    '| --- | --- |',
    row('Tenant', code(report.tenant_id)),
    row('Subject', code(report.subject_id)),
    row('Artifact hash', code(report.artifact_hash)),
    row('Admitted at', report.admitted_at),
    row('Lifecycle', report.lifecycle),
    row('Observables', `H ${observables.H} · C ${observables.C} · E ${observables.E}`),
    row('Proof bundle', code(report.replay_url)),
    '',
    '## Gates',
    '',
    '| Gate | Result | What was checked |',
    '| --- | --- | --- |',
    ...GATES.map((gate) => row(gate, resultOf(report.gate_results[gate]), report.gate_details[gate] ?? '')),
    '',
    '## Evidence',
    '',
    ...Object.entries(report.evidence).map(([name, hash]) => `- ${name}: ${code(hash)}`),
    '',
    '## Transparency log',
    '',
    `- Leaf index: ${leaf.leaf_index}`,
    `- Leaf hash: ${code(leaf.leaf_hash)}`,
    `- Signed tree head: tree size ${sth.tree_size}, root hash ${code(sth.root_hash)}, timestamp ${sth.timestamp}`,
    `- Log id: ${code(sth.log_id)}`,
    `- Log signature: ${code(sth.log_signature)}`,
    `- Witness signatures: ${sth.witness_signatures.length === 0 ? 'none' : sth.witness_signatures.map((w) => code(w.name)).join(', ')}`,
    `- Inclusion proof of leaf ${proof.leaf_index} in tree size ${proof.tree_size}, audit path:`,
    ...(proof.audit_path.length === 0
      ? ['  - (empty: the leaf is the whole tree)']
      : proof.audit_path.map((h) => `  - ${code(h)}`)),
    '',
    '## Validator certificate',
    '',
    `- Certificate hash: ${code(certificate.cert_hash)}`,
    `- Proposer: ${code(certificate.proposer_id)}`,
    certificateCountsLine(certificate),
    '',
    '| Validator | Decision | Voted at |',
    '| --- | --- | --- |',
    ...certificate.votes.map((vote) => row(code(vote.validator_id), vote.decision, vote.voted_at)),
    '',
    '## Envelope',
    '',
    `- Authority node: ${code(envelope.authority_node_id)}`,
    `- Authority signature: ${code(envelope.authority_signature)}`,
    `- Certificate hash: ${code(envelope.certificate_hash)}`,
    `- Log: ${code(envelope.log_binding.log_id)} at ${code(envelope.log_binding.log_url)}`,
    `- Generated at: ${envelope.generated_at}`,
    '',
    '## How to verify this report',
    '',
    ...report.verification_steps.map((step, i) => `${i + 1}. ${step}`),
    '',
  ];
  return lines.join('\n');
}

/** The round's size and quorum in today's words, with an earlier certificate's own field names. */
function certificateCountsLine(certificate: ValidatorCertificate): string {
  const { validators, quorum } = certificateCounts(certificate);
  const earlier = earlierFormNote(certificate);
  const line = `- Validators: ${validators}; quorum (ACCEPT votes needed): ${quorum}; received: ${certificate.votes.length}`;
  return earlier ? `${line} (${earlier})` : line;
}

function resultOf(gate: unknown): string {
  const result =
    gate !== null && typeof gate === 'object' ? (gate as { result?: unknown }).result : undefined;
  return typeof result === 'string' ? result : 'missing';
}

/** A table row; cells may not contain a pipe or a line break. */
function row(...cells: string[]): string {
  return `| ${cells.map((cell) => cell.replace(/\r?\n/g, ' ').replace(/\|/g, '\\|')).join(' | ')} |`;
}

/** A code span that survives backticks inside the value (CommonMark: a longer fence). */
function code(text: string): string {
  const longest = Math.max(0, ...(text.match(/`+/g) ?? []).map((run) => run.length));
  const fence = '`'.repeat(longest + 1);
  const pad = longest > 0 || text.startsWith(' ') ? ' ' : '';
  return `${fence}${pad}${text}${pad}${fence}`;
}
