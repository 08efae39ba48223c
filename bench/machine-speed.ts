/**
 * How fast this machine's cores are while a run is measured. On a shared virtual machine the same
 * build has measured twice as fast in one week as in the next, with nothing in the code changed, so
 * every report says how fast the machine was at its start and its end: single-thread SHA-256 of
 * 65-byte inputs (an interior Merkle node's input) with node:crypto, the median of several short
 * samples. CPU-bound figures scale roughly with it. The targets were set on a machine doing about
 * 1.3 M of these hashes a second.
 */
import { hash } from 'node:crypto';

/** The hash rate the targets were set against (hashes/s). */
export const REFERENCE_SHA256_PER_SECOND = 1.3e6;

const SAMPLES = 7;
const SAMPLE_MS = 150;

/** Single-thread SHA-256 hashes of 65 bytes per second: the median of seven 150 ms samples. */
export function sha256PerSecond(): number {
  const input = Buffer.alloc(65, 0x5a);
  const rates: number[] = [];
  for (let sample = 0; sample < SAMPLES; sample++) {
    const started = process.hrtime.bigint();
    const deadline = started + BigInt(SAMPLE_MS * 1e6);
    let hashes = 0;
    let now = started;
    while (now < deadline) {
      for (let i = 0; i < 1000; i++) hash('sha256', input, 'buffer');
      hashes += 1000;
      now = process.hrtime.bigint();
    }
    rates.push(hashes / (Number(now - started) / 1e9));
  }
  rates.sort((a, b) => a - b);
  return rates[Math.floor(SAMPLES / 2)]!;
}

/** "0.61 M/s at the start, 0.63 M/s at the end (0.47× the targets' machine)". */
export function describeMachineSpeed(speed: { start: number; end: number }): string {
  const millions = (rate: number) => `${(rate / 1e6).toFixed(2)} M/s`;
  const share = (speed.start + speed.end) / 2 / REFERENCE_SHA256_PER_SECOND;
  return `${millions(speed.start)} at the start, ${millions(speed.end)} at the end (${share.toFixed(2)}× the targets' machine)`;
}
