import type { BenchRow } from './report';

export const TABLE_HEADER = ['suite', 'metric', 'value', 'unit', 'target', 'met', 'peer', 'ratio'];

/** Each row as the table's cells, in TABLE_HEADER order. */
export function tableCells(rows: readonly BenchRow[]): string[][] {
  return rows.map((r) => [
    r.suite,
    r.metric,
    r.value.toLocaleString('en-US', { maximumFractionDigits: 3 }),
    r.unit,
    r.target ?? '',
    r.met === undefined ? '' : r.met ? 'yes' : 'NO',
    r.peer ? `${r.peer.name}: ${r.peer.value.toLocaleString('en-US', { maximumFractionDigits: 3 })}` : '',
    r.ratio === undefined ? '' : `${r.ratio.toFixed(2)}x`,
  ]);
}

/** Prints rows as an aligned text table on stdout. */
export function printTable(rows: readonly BenchRow[]): void {
  const cells = tableCells(rows);
  const widths = TABLE_HEADER.map((h, i) => Math.max(h.length, ...cells.map((c) => c[i]!.length)));
  const line = (values: string[]) => values.map((v, i) => v.padEnd(widths[i]!)).join(' | ');
  console.log(line(TABLE_HEADER));
  console.log(widths.map((w) => '-'.repeat(w)).join('-|-'));
  for (const row of cells) console.log(line(row));
  const notes = rows.filter((r) => r.notes);
  if (notes.length) {
    console.log('\nnotes:');
    for (const r of notes) console.log(`- ${r.metric}: ${r.notes}`);
  }
}
