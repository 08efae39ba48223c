/** The human summary of an audit report, as `gov audit` prints it. Pure. */
import type { LiveCheckReport } from './live-check';
import type { AuditReport, Discrepancy } from './report';

export function formatAuditSummary(report: AuditReport, source: string): string {
  const lines = [
    `audit of ${source}${report.checks === 'log' ? ' (the log structure alone: --checks log)' : ''}${report.log === null ? '' : `, log ${report.log} alone`}`,
    `  ${count(report.events)} events, ${count(report.leaves)} leaves, ${count(report.tree_heads)} tree heads in ${report.seconds.toFixed(1)} s (${count(Math.round(report.leaves_per_second))} leaves/s)`,
  ];
  // One log (only the shared one, as before there were others): its size and root on one line.
  if (report.logs.length <= 1)
    lines.push(
      `  tree size ${count(report.tree_size)}, root ${report.root_hash ?? '(cannot be recomputed)'}`,
    );
  else {
    lines.push(`  ${report.logs.length} logs:`);
    const width = Math.max(...report.logs.map((log) => log.log.length));
    for (const log of report.logs)
      lines.push(
        `    ${log.log.padEnd(width)}  ${count(log.leaves)} leaves, ${count(log.tree_heads)} tree heads, tree size ${count(log.tree_size)}, root ${log.root_hash ?? '(cannot be recomputed)'}`,
      );
  }
  if (report.discrepancies.length === 0)
    lines.push(
      '',
      report.checks === 'log'
        ? 'clean: every leaf record, leaf hash, root and signed tree head checks out (events, bundles, certificates, envelopes and links were not checked).'
        : 'clean: every event, leaf, root and signed tree head checks out.',
    );
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

/** The live check's part of the summary: what was compared with the server, and what differed. */
export function formatLiveSummary(live: LiveCheckReport): string {
  const lines = [`live check of ${live.log_url}`];
  if (live.server) {
    const c = live.compared;
    lines.push(
      `  server signed size ${count(live.server.tree_size)}, root ${live.server.root_hash} (verified by ${live.server.verified_by})`,
      `  compared ${count(c.tiles)} tiles (${count(c.leaves)} leaves), ${count(c.tree_heads)} tree heads, ${count(c.consistency_proofs)} consistency proofs, ${count(c.proofs)} inclusion proofs, ${count(c.anchors)} anchors; latest root ${c.latest_root_matches === null ? 'not compared' : c.latest_root_matches ? 'matches' : 'DIFFERS'}`,
    );
  } else lines.push('  the server could not be read and verified: nothing was compared');
  if (live.discrepancies.length === 0 && live.server)
    lines.push('', 'clean: the server publishes what the events prove.');
  else if (live.discrepancies.length > 0) {
    lines.push(
      '',
      `${count(live.discrepancies.length)} live discrepanc${live.discrepancies.length === 1 ? 'y' : 'ies'}:`,
    );
    for (const d of live.discrepancies) lines.push(...formatDiscrepancy(d));
  }
  if (live.notices.length > 0) lines.push('', 'notices:', ...live.notices.map((n) => `  ${n}`));
  return lines.join('\n');
}

function formatDiscrepancy(d: Discrepancy): string[] {
  const where = [
    d.position === null ? 'no position' : `position ${d.position}`,
    d.event_type,
    d.event_id ? `event ${d.event_id}` : null,
    d.log === undefined ? null : `log ${d.log}`,
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
