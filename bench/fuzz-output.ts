/**
 * Schemathesis closes its output with a pytest-style banner ("=== 2 warnings in 19.55s ==="). CI's
 * recorder reads that banner as pytest's closing line, finds no test counted in it, and records the
 * whole run as having executed no test, ignoring Jest's closing line after it. So the fuzz step
 * rewrites banner lines into plain ones before printing them; nothing else in the output changes.
 */

const BANNER = /^=+ (.*?) =+$/;
const DURATION = / in (\d+(?:\.\d+)?)s$/;

/** One line of schemathesis's standard output as the fuzz step prints it. */
export function plainFuzzLine(line: string): string {
  const banner = BANNER.exec(line);
  if (!banner) return line;
  const title = banner[1]!.replace(DURATION, ' (after $1 s)');
  return `schemathesis -- ${title} --`;
}
