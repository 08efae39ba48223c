/** The messages between the server's main thread and its projection thread (projection-thread.ts). */
import type { Config } from '../config/config';

export interface ProjectionThreadData {
  /** The thread opens its own connections to the stores this configuration names. */
  config: Config;
}

/** The projector metrics the thread updates; the main thread's registry is the one served. */
export const FORWARDED_METRICS = [
  'projectorEvents',
  'projectorLag',
  'projectorRate',
  'projectorCheckpoint',
  'projectorIsWriter',
  'projectorErrors',
] as const;
type ForwardedMetric = (typeof FORWARDED_METRICS)[number];

export interface MetricUpdate {
  metric: ForwardedMetric;
  operation: 'inc' | 'set';
  labels: Record<string, string>;
  value: number;
}

/** Main thread → projection thread. */
export type ProjectionThreadRequest =
  /** Events were committed on another connection: read them now rather than at the next poll. */
  { kind: 'appended' } | { kind: 'catch-up'; id: number } | { kind: 'stop' };

/** Projection thread → main thread. */
export type ProjectionThreadReport =
  /** Running; each projection's stored checkpoint (null: nothing applied yet). */
  | { kind: 'started'; positions: Record<string, number | null> }
  /** What one event-loop turn of the thread stored: the position each projection reached, and metrics. */
  | { kind: 'progress'; applied: Record<string, number>; metrics: MetricUpdate[] }
  | { kind: 'caught-up'; id: number; error?: string }
  | { kind: 'stopped' };
