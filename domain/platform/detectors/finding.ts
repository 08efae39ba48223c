/**
 * What the G3 detectors report: a kind and where it is, never the matched text, so a finding can go
 * into a log, a gate reason or a leaf without carrying what it found.
 */
export type FindingCategory = 'secret' | 'personal';

export interface Finding {
  /** What was found (`openai_api_key`, `email`, …): one of SECRET_KINDS or PERSONAL_KINDS. */
  kind: string;
  category: FindingCategory;
  /** UTF-16 offsets into the scanned text: the finding is `text.slice(start, end)`. */
  start: number;
  end: number;
}

/**
 * The findings in text order, without overlaps: where two overlap, the one that starts first wins, and
 * of two starting together the longer (then the one listed first). One secret spelled two ways
 * (`password=sk-…`) thus counts once.
 */
export function withoutOverlaps(findings: readonly Finding[]): Finding[] {
  const ordered = findings
    .map((finding, order) => ({ finding, order }))
    .sort((a, b) => a.finding.start - b.finding.start || b.finding.end - a.finding.end || a.order - b.order);
  const kept: Finding[] = [];
  let reach = -1;
  for (const { finding } of ordered) {
    if (finding.start < reach) continue;
    kept.push(finding);
    reach = finding.end;
  }
  return kept;
}

/**
 * The text with each finding replaced by `[REDACTED:<kind>]` (for model output, which is redacted rather
 * than blocked). Overlapping findings are merged as `withoutOverlaps` does.
 */
export function redact(text: string, findings: readonly Finding[]): string {
  if (findings.length === 0) return text;
  let out = '';
  let at = 0;
  for (const finding of withoutOverlaps(findings)) {
    const start = Math.max(finding.start, at);
    const end = Math.min(finding.end, text.length);
    if (end <= start) continue;
    out += `${text.slice(at, start)}[REDACTED:${finding.kind}]`;
    at = end;
  }
  return out + text.slice(at);
}

/** How many findings of each category, and of each kind within it: what a gate compares with the policy's maxima. */
export interface FindingCounts {
  secret: number;
  personal: number;
  kinds: Record<FindingCategory, Record<string, number>>;
}

export function countFindings(findings: readonly Finding[]): FindingCounts {
  const counts: FindingCounts = { secret: 0, personal: 0, kinds: { secret: {}, personal: {} } };
  for (const finding of findings) {
    counts[finding.category] += 1;
    const kinds = counts.kinds[finding.category];
    kinds[finding.kind] = (kinds[finding.kind] ?? 0) + 1;
  }
  return counts;
}

/** Runs a global regex over the text from its start; `lastIndex` is reset so one compiled regex serves every call. */
export function* matches(pattern: RegExp, text: string): Generator<RegExpExecArray> {
  pattern.lastIndex = 0;
  for (let match = pattern.exec(text); match !== null; match = pattern.exec(text)) {
    if (match[0].length === 0) pattern.lastIndex += 1;
    yield match;
  }
}
