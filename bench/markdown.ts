import type { BenchRow } from './report';
import { TABLE_HEADER, tableCells } from './table';

export interface BenchReport {
  date: string;
  command: string;
  machine: { cpus: number; cpu: string | undefined; memory_gib: number; node: string };
  rows: BenchRow[];
}

/** BENCHMARKS.md: what ran where, every figure with its target and peer, then the notes. */
export function benchmarksMarkdown(report: BenchReport): string {
  const { machine } = report;
  const targets = report.rows.filter((row) => row.met !== undefined);
  const met = targets.filter((row) => row.met).length;
  const cell = (text: string) => text.replaceAll('|', '\\|');
  const lines = [
    '# Benchmarks',
    '',
    `Written by \`${report.command}\` on ${report.date.slice(0, 10)} (${report.date}); run it again to refresh this file.`,
    '',
    `Machine: ${machine.cpus} × ${machine.cpu ?? 'unknown CPU'}, ${machine.memory_gib} GiB, Node ${machine.node}. The load`,
    'generators run on the same machine as the server, so they share its cores.',
    '',
    `Targets met: ${met} of ${targets.length}.${report.rows.some((row) => row.peer) ? ' A ratio above 1 means this project is better than the peer, measured in the same run.' : ''}`,
    '',
    `| ${TABLE_HEADER.join(' | ')} |`,
    `|${TABLE_HEADER.map(() => '---').join('|')}|`,
    ...tableCells(report.rows).map((cells) => `| ${cells.map(cell).join(' | ')} |`),
    '',
  ];
  const notes = report.rows.filter((row) => row.notes);
  if (notes.length > 0) {
    lines.push('## Notes', '');
    for (const row of notes) lines.push(`- ${row.suite}, ${row.metric}: ${row.notes}`);
    lines.push('');
  }
  return lines.join('\n');
}
