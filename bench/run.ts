import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { admissionBench } from './admission.bench';
import { auditBench } from './audit.bench';
import { eventStoreBench } from './event-store.bench';
import { logsBench } from './logs.bench';
import { describeMachineSpeed, sha256PerSecond } from './machine-speed';
import { type BenchReport, benchmarksMarkdown } from './markdown';
import { merkleBench } from './merkle.bench';
import { platformBench } from './platform.bench';
import type { BenchRow, BenchSuite } from './report';
import { soakBench } from './soak.bench';
import { printTable } from './table';
import { topologyBench } from './topology.bench';
import { webhookBench } from './webhooks.bench';

/**
 * `npm run bench [suite…]`: runs the benchmarks, prints a table, writes bench/results/latest.json and
 * BENCHMARKS.md.
 */
const suites: Record<string, BenchSuite> = {
  'event-store': eventStoreBench,
  merkle: merkleBench,
  governance: admissionBench,
  webhooks: webhookBench,
  audit: auditBench,
  soak: soakBench,
  topology: topologyBench,
  logs: logsBench,
  platform: platformBench,
};

async function main(): Promise<void> {
  const wanted = process.argv.slice(2).filter((a) => !a.startsWith('-'));
  const names = wanted.length > 0 ? wanted : Object.keys(suites);
  const rows: BenchRow[] = [];
  const speedAtStart = sha256PerSecond();
  for (const name of names) {
    const suite = suites[name];
    if (!suite) throw new Error(`unknown suite '${name}'; known: ${Object.keys(suites).join(', ')}`);
    process.stderr.write(`running ${name}…\n`);
    rows.push(...(await suite()));
  }
  const speed = { start: speedAtStart, end: sha256PerSecond() };
  printTable(rows);
  process.stderr.write(`machine speed (single-thread SHA-256 of 65 bytes): ${describeMachineSpeed(speed)}\n`);
  const report: BenchReport = {
    date: new Date().toISOString(),
    command: `npm run bench${wanted.length ? ` -- ${wanted.join(' ')}` : ''}`,
    machine: {
      cpus: os.cpus().length,
      cpu: os.cpus()[0]?.model,
      memory_gib: Math.round(os.totalmem() / 2 ** 30),
      node: process.version,
      sha256_per_second: speed,
    },
    rows,
  };
  const dir = path.resolve(__dirname, '../../bench/results');
  fs.mkdirSync(dir, { recursive: true });
  fs.writeFileSync(path.join(dir, 'latest.json'), `${JSON.stringify(report, null, 2)}\n`);
  process.stderr.write(`wrote ${path.relative(process.cwd(), path.join(dir, 'latest.json'))}\n`);
  const markdown = path.resolve(__dirname, '../../BENCHMARKS.md');
  fs.writeFileSync(markdown, benchmarksMarkdown(report));
  process.stderr.write(`wrote ${path.relative(process.cwd(), markdown)}\n`);
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
