import { describeMachineSpeed } from './machine-speed';
import type { BenchRow } from './report';
import { TABLE_HEADER, tableCells } from './table';

export interface BenchReport {
  date: string;
  command: string;
  machine: {
    cpus: number;
    cpu: string | undefined;
    memory_gib: number;
    node: string;
    /** Single-thread SHA-256 hashes of 65 bytes per second when the run started and ended. */
    sha256_per_second?: { start: number; end: number };
  };
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
    ...(machine.sha256_per_second
      ? [
          `Machine speed: ${describeMachineSpeed(machine.sha256_per_second)}, in single-thread SHA-256 hashes`,
          'of 65-byte inputs (node:crypto). This shared virtual machine has run the same build at twice the',
          'speed in one week as in another; CPU-bound figures scale roughly with this rate.',
          '',
        ]
      : []),
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
