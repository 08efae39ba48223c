/** The human summary of an audit report, as `gov audit` prints it. Pure. */
import type { AuditReport, Discrepancy } from './report';

export function formatAuditSummary(report: AuditReport, source: string): string {
  const lines = [
    `audit of ${source}`,
    `  ${count(report.events)} events, ${count(report.leaves)} leaves, ${count(report.tree_heads)} tree heads in ${report.seconds.toFixed(1)} s (${count(Math.round(report.leaves_per_second))} leaves/s)`,
    `  tree size ${count(report.tree_size)}, root ${report.root_hash ?? '(cannot be recomputed)'}`,
  ];
  if (report.discrepancies.length === 0)
    lines.push('', 'clean: every event, leaf, root and signed tree head checks out.');
  else {
    lines.push(
      '',
      `${count(report.discrepancies.length)} discrepanc${report.discrepancies.length === 1 ? 'y' : 'ies'}:`,
    );
    for (const d of report.discrepancies) lines.push(...formatDiscrepancy(d));
    lines.push('', `by check: ${countsByCheck(report.discrepancies)}`);
  }
  if (report.notices.length > 0) lines.push('', 'notices:', ...report.notices.map((n) => `  ${n}`));
  return lines.join('\n');
}

function formatDiscrepancy(d: Discrepancy): string[] {
  const where = [
    d.position === null ? 'no position' : `position ${d.position}`,
    d.event_type,
    d.event_id ? `event ${d.event_id}` : null,
    d.leaf_index === undefined ? null : `leaf ${d.leaf_index}`,
    d.tree_size === undefined ? null : `tree size ${d.tree_size}`,
  ].filter((part) => part !== null);
  return [`  [${d.check}] ${where.join(', ')}`, `      ${d.message}`];
}

function countsByCheck(discrepancies: readonly Discrepancy[]): string {
  const counts = new Map<string, number>();
  for (const d of discrepancies) counts.set(d.check, (counts.get(d.check) ?? 0) + 1);
  return [...counts].map(([check, n]) => `${check} ${n}`).join(', ');
}

function count(n: number): string {
  return n.toLocaleString('en-US');
}
