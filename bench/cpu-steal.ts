import { readFileSync } from 'node:fs';

/** The machine's CPU time by kind, in USER_HZ ticks since boot (the `cpu` line of Linux /proc/stat). */
export interface CpuTimes {
  /** user + nice + system + irq + softirq */
  busy: number;
  /** idle + iowait */
  idle: number;
  /** Time a hypervisor gave this machine's virtual CPUs to someone else. */
  steal: number;
}

/** Parses the aggregate `cpu` line of /proc/stat; null when it is missing or malformed. */
export function parseCpuTimes(stat: string): CpuTimes | null {
  const fields = /^cpu\s+(.+)$/m.exec(stat)?.[1]?.trim().split(/\s+/).map(Number);
  if (!fields || fields.length < 8 || fields.some((n) => !Number.isFinite(n))) return null;
  const [user, nice, system, idle, iowait, irq, softirq, steal] = fields as [
    number,
    number,
    number,
    number,
    number,
    number,
    number,
    number,
  ];
  return { busy: user + nice + system + irq + softirq, idle: idle + iowait, steal };
}

export function readCpuTimes(): CpuTimes | null {
  try {
    return parseCpuTimes(readFileSync('/proc/stat', 'utf8'));
  } catch {
    return null; // not Linux
  }
}

/**
 * The share of CPU time stolen by the hypervisor between two readings (0–1), NaN when unknown. On a
 * shared virtual machine this is time the benchmark wanted and did not get: a run with high steal
 * measures the neighbours as much as the service.
 */
export function stealShare(before: CpuTimes | null, after: CpuTimes | null): number {
  if (!before || !after) return Number.NaN;
  const steal = after.steal - before.steal;
  const total = after.busy - before.busy + (after.idle - before.idle) + steal;
  return total > 0 ? steal / total : Number.NaN;
}
