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

/** A `Name:   N kB` line of a Linux /proc/<pid>/status, in bytes; NaN when absent. */
function statusBytes(status: string, name: string): number {
  const match = new RegExp(`^${name}:\\s+(\\d+) kB`, 'm').exec(status);
  return match ? Number(match[1]) * 1024 : Number.NaN;
}

/** Parses the VmRSS and RssAnon lines of a Linux /proc/<pid>/status. */
export function parseProcStatus(status: string): { rss: number; anon: number } | null {
  const rss = statusBytes(status, 'VmRSS');
  return Number.isNaN(rss) ? null : { rss, anon: statusBytes(status, 'RssAnon') };
}

/**
 * This process's peak RSS since it started (VmHWM, Linux), or NaN. Not getrusage's maxRSS: Linux
 * carries that across fork and exec, so a forked child reports its parent's peak when that is higher.
 */
export function ownPeakRss(): number {
  try {
    return statusBytes(readFileSync('/proc/self/status', 'utf8'), 'VmHWM');
  } catch {
    return Number.NaN;
  }
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
