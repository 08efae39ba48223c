/** The compliance report as a Markdown document a person can read, print or attach to an audit. */
import type { ComplianceReport, ValidatorCertificate } from '../../event-schemas';
import { certificateCounts, earlierFormNote } from './certificate';
import { HTML_REFERENCES } from './wording';

const GATES = ['G1', 'G2', 'G3', 'G4', 'G5'] as const;

export function renderReportMarkdown(report: ComplianceReport): string {
  const { sth, leaf, inclusion_proof: proof, certificate, envelope, observables } = report;
  const lines = [
    `# Compliance report ${code(report.artifact_hash)}`,
    '',
    `${code(report.type)}, version ${report.version}.`,
    '',
    '| Field | Value |',
    '| --- | --- |',
    row('Tenant', code(report.tenant_id)),
    row('Subject', code(report.subject_id)),
    row('Artifact hash', code(report.artifact_hash)),
    row('Admitted at', code(report.admitted_at)),
    row('Lifecycle', text(report.lifecycle)),
    row('Observables', `H ${observables.H} · C ${observables.C} · E ${observables.E}`),
    row('Proof bundle', code(report.replay_url)),
    '',
    '## Gates',
    '',
    '| Gate | Result | What was checked |',
    '| --- | --- | --- |',
    ...GATES.map((gate) =>
      row(gate, text(resultOf(report.gate_results[gate])), text(report.gate_details[gate] ?? '')),
    ),
    '',
    '## Evidence',
    '',
    ...Object.entries(report.evidence).map(([name, hash]) => `- ${text(name)}: ${code(hash)}`),
    '',
    '## Transparency log',
    '',
    `- Log: ${code(leaf.log)} at ${code(leaf.log_url)}`,
    `- Leaf index: ${leaf.leaf_index}`,
    `- Leaf hash: ${code(leaf.leaf_hash)}`,
    `- Signed tree head: tree size ${sth.tree_size}, root hash ${code(sth.root_hash)}, timestamp ${code(sth.timestamp)}`,
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
    ...certificate.votes.map((vote) =>
      row(code(vote.validator_id), text(vote.decision), code(vote.voted_at)),
    ),
    '',
    '## Envelope',
    '',
    `- Authority node: ${code(envelope.authority_node_id)}`,
    `- Authority signature: ${code(envelope.authority_signature)}`,
    `- Certificate hash: ${code(envelope.certificate_hash)}`,
    `- Log: ${code(envelope.log_binding.log_id)} at ${code(envelope.log_binding.log_url)}`,
    `- Generated at: ${code(envelope.generated_at)}`,
    '',
    '## How to verify this report',
    '',
    ...report.verification_steps.map((step, i) => `${i + 1}. ${text(step)}`),
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

/** A table row of cells already written by `text` or `code`, which leave no pipe or line break. */
function row(...cells: string[]): string {
  return `| ${cells.join(' | ')} |`;
}

/** Machine values (hashes, ids, times, URLs) that can sit in a code span as they are. */
const CODE_SAFE = /^[A-Za-z0-9._~:/?#@!$()*+,;=%[\]{}^-]+$/;

/** A value in a code span when every character is plain; anything else is written as `text`. */
function code(value: string): string {
  return CODE_SAFE.test(value) ? `\`${value}\`` : text(value);
}

/**
 * Any string as Markdown text that reads back as itself once rendered (or unescaped) and opens nothing.
 * HTML-significant characters and line breaks become character references, so no tag, entity or new
 * line (heading, list item, table row) comes from a value; so does a pipe, which splits table cells
 * before escapes are read, and whitespace at either end, which a table cell would trim. What opens
 * emphasis, a code span, a link or image, strikethrough or an autolink (`//`, `www.`, `a@b`), and a
 * list marker or thematic break at the start, is backslash-escaped; an underscore inside a word opens
 * nothing and stays as it is, so field names read plainly. U+0000, which CommonMark cannot carry, reads
 * as U+FFFD.
 */
function text(value: string): string {
  let out = '';
  const last = value.length - 1;
  for (let i = 0; i <= last; i++) {
    const char = value[i]!;
    const reference = REFERENCES.get(char);
    if (reference !== undefined) out += reference;
    else if (char < ' ' || char === '\x7f' || ((i === 0 || i === last) && /\s/.test(char)))
      out += `&#${char.charCodeAt(0)};`;
    else if (opens(value, i)) out += `\\${char}`;
    else out += char;
  }
  return out;
}

const REFERENCES = new Map([...HTML_REFERENCES, ['|', '&#124;'], ['\u0000', '&#xFFFD;']]);
const ALWAYS_ESCAPED = new Set(['\\', '`', '*', '[', ']', '~', '@', '!', '#']);
const WORD = /[A-Za-z0-9]/;

/** Whether the character at `i` could start or end Markdown syntax, and so needs a backslash. */
function opens(value: string, i: number): boolean {
  const char = value[i]!;
  if (ALWAYS_ESCAPED.has(char)) return true;
  if (char === '_') return !(WORD.test(value[i - 1] ?? '') && WORD.test(value[i + 1] ?? ''));
  if (char === '/') return value[i + 1] === '/';
  // At the start of a list item the value is at a line's start: a list marker or a thematic break.
  if (i === 0 && (char === '+' || char === '-' || char === '=')) return true;
  if ((char === '.' || char === ')') && /^[0-9]+$/.test(value.slice(0, i))) return true;
  if (char === '.') return /www$/i.test(value.slice(Math.max(0, i - 3), i));
  return false;
}
