import { Counter, collectDefaultMetrics, Gauge, Histogram, Registry } from 'prom-client';

/** The agent platform's series are named with this prefix, apart from the clearinghouse's. */
export const PLATFORM_METRIC_PREFIX = 'gov_platform_';

/** Every metric the process exposes at GET /v1/metrics, on one registry per process (or per test). */
export function createMetrics(registry: Registry = new Registry(), { defaults = true } = {}) {
  if (defaults) collectDefaultMetrics({ register: registry, prefix: 'gov_' });
  const platformGovernedActions = new Counter({
    name: `${PLATFORM_METRIC_PREFIX}governed_actions_total`,
    help: 'Agent actions through the governed-action pipeline, by verdict',
    labelNames: ['verdict'] as const,
    registers: [registry],
  });
  // Every verdict is a series from the start, so a rate over it is defined before the first action.
  for (const verdict of ['ADMIT', 'BLOCK', 'ESCALATE']) platformGovernedActions.inc({ verdict }, 0);
  return {
    registry,
    httpRequests: new Histogram({
      name: 'gov_http_request_duration_seconds',
      help: 'HTTP request duration by route and status',
      labelNames: ['method', 'route', 'status'] as const,
      buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5],
      registers: [registry],
    }),
    projectorEvents: new Counter({
      name: 'gov_projector_events_total',
      help: 'Events applied by a projector',
      labelNames: ['projector'] as const,
      registers: [registry],
    }),
    projectorLag: new Gauge({
      name: 'gov_projector_lag_events',
      help: 'Events between the head of the event store and the projector checkpoint',
      labelNames: ['projector'] as const,
      registers: [registry],
    }),
    projectorRate: new Gauge({
      name: 'gov_projector_events_per_second',
      help: 'Recent projector throughput (events per second, smoothed)',
      labelNames: ['projector'] as const,
      registers: [registry],
    }),
    projectorCheckpoint: new Gauge({
      name: 'gov_projector_checkpoint_position',
      help: 'Global position of the last event a projector applied',
      labelNames: ['projector'] as const,
      registers: [registry],
    }),
    projectorIsWriter: new Gauge({
      name: 'gov_projector_is_writer',
      help: '1 while this instance holds the single-writer lease of the projector',
      labelNames: ['projector'] as const,
      registers: [registry],
    }),
    projectorErrors: new Counter({
      name: 'gov_projector_errors_total',
      help: 'Batches a projector failed to apply (it resumes from its checkpoint)',
      labelNames: ['projector'] as const,
      registers: [registry],
    }),
    sequencerBatchSeconds: new Histogram({
      name: 'gov_sequencer_batch_seconds',
      help: 'Time to integrate one batch of leaves, sign and store its tree head, by log',
      labelNames: ['log'] as const,
      buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1],
      registers: [registry],
    }),
    sequencerIsWriter: new Gauge({
      name: 'gov_sequencer_is_writer',
      help: '1 while this process holds the lease of at least one log and sequences it; 0 while it stands by',
      registers: [registry],
    }),
    sequencerLeaves: new Counter({
      name: 'gov_sequencer_leaves_total',
      help: 'Leaves integrated into the Merkle logs, by log',
      labelNames: ['log'] as const,
      registers: [registry],
    }),
    anchorLagSeconds: new Histogram({
      name: 'gov_anchor_lag_seconds',
      help: "From a log's tree head being signed to its anchor being appended to the shared log, by anchored log",
      labelNames: ['log'] as const,
      buckets: [0.5, 1, 2.5, 5, 10, 15, 20, 30, 60],
      registers: [registry],
    }),
    admissions: new Counter({
      name: 'gov_admissions_total',
      help: 'Evidence and execution decisions by outcome',
      labelNames: ['kind', 'outcome'] as const,
      registers: [registry],
    }),
    webhookAttempts: new Counter({
      name: 'gov_webhook_attempts_total',
      help: 'Webhook delivery attempts by outcome (delivered, retry, failed, cancelled)',
      labelNames: ['outcome'] as const,
      registers: [registry],
    }),
    webhookAttemptSeconds: new Histogram({
      name: 'gov_webhook_attempt_seconds',
      help: 'Duration of one webhook delivery attempt',
      buckets: [0.001, 0.005, 0.01, 0.05, 0.1, 0.5, 1, 2.5, 5, 10],
      registers: [registry],
    }),
    webhookFirstAttemptDelaySeconds: new Histogram({
      name: 'gov_webhook_first_attempt_delay_seconds',
      help: 'From the event that caused a delivery to its first attempt',
      buckets: [0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2, 5, 10],
      registers: [registry],
    }),
    platformHttpRequests: new Histogram({
      name: `${PLATFORM_METRIC_PREFIX}http_request_duration_seconds`,
      help: "The agent platform's HTTP request duration by route and status",
      labelNames: ['method', 'route', 'status'] as const,
      buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5],
      registers: [registry],
    }),
    platformGovernedActions,
    busMalformedMessages: new Counter({
      name: 'gov_bus_malformed_messages_total',
      help: 'Bus messages a consumer group could not decode as events (logged with their offset and skipped)',
      labelNames: ['group'] as const,
      registers: [registry],
    }),
  };
}

export type Metrics = ReturnType<typeof createMetrics>;
