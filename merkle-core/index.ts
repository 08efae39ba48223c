/**
 * merkle-core: an RFC 9162 transparency log with C2SP tiles, checkpoints, signed notes and
 * cosignatures (Node entry point): the public API of its packages, which depend on each other in one
 * direction only: encoding ← tree ← proof ← tiles, and note (on encoding, tree and proof).
 * `browser.ts` exposes the verifiers for browsers. The library imports no application code.
 */
export * from './encoding';
export * from './note';
export * from './proof';
export * from './tiles';
export * from './tree';
