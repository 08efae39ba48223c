import { readFileSync } from 'node:fs';

/** Memory of another process, in bytes; NaN for what could not be read. */
export interface ProcessMemory {
  /** Resident set size. */
  rss: number;
  /** Its anonymous part: JavaScript heap, native allocations, SQLite page caches (not mapped files). */
  anon: number;
  /** The JavaScript heap in use, as the process itself reports it. */
  heapUsed: number;
}

/** Parses the VmRSS and RssAnon lines of a Linux /proc/<pid>/status. */
export function parseProcStatus(status: string): { rss: number; anon: number } | null {
  const kib = (name: string) => {
    const match = new RegExp(`^${name}:\\s+(\\d+) kB`, 'm').exec(status);
    return match ? Number(match[1]) * 1024 : Number.NaN;
  };
  const rss = kib('VmRSS');
  return Number.isNaN(rss) ? null : { rss, anon: kib('RssAnon') };
}

/** A gauge's value on a Prometheus text page (whatever prefix precedes `name`); NaN when absent. */
export function gaugeValue(metrics: string, name: string): number {
  const match = new RegExp(`^\\w*${name} (\\S+)$`, 'm').exec(metrics);
  return match ? Number(match[1]) : Number.NaN;
}

/**
 * The server's memory: RSS from /proc/<pid>/status (Linux), the heap from its /v1/metrics; where /proc
 * cannot be read, the `process_resident_memory_bytes` of its metrics.
 */
export async function processMemory(pid: number, metricsUrl: string): Promise<ProcessMemory> {
  let fromProc: { rss: number; anon: number } | null = null;
  try {
    fromProc = parseProcStatus(readFileSync(`/proc/${pid}/status`, 'utf8'));
  } catch {
    // not Linux, or no such process: the server's own figure below
  }
  const metrics = await (await fetch(metricsUrl)).text();
  const heapUsed = gaugeValue(metrics, 'nodejs_heap_size_used_bytes');
  if (fromProc) return { ...fromProc, heapUsed };
  const rss = gaugeValue(metrics, 'process_resident_memory_bytes');
  if (Number.isNaN(rss)) throw new Error(`${metricsUrl} reports no process_resident_memory_bytes`);
  return { rss, anon: Number.NaN, heapUsed };
}
