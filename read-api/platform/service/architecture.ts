/**
 * `GET /v1/architecture` and `GET /v1/services`: what the deployment is made of, for a client or an
 * operator finding their way: the two services and their URLs, the event-sourced core under both, the
 * public log, and what each process of each deployment runs.
 */
import { logUrlOf, SHARED_LOG_NAME } from '../../../domain/log';
import type { Config } from '../../../runtime/config/config';
import type { ProcessRole } from '../../../runtime/core/services';

type Urls = Pick<Config, 'publicUrl' | 'platformPublicUrl'>;

export interface ServiceEntry {
  description: string;
  url: string;
  [link: string]: string;
}

/** The named services and where each is reached. */
export function serviceMap(config: Urls): { services: Record<string, ServiceEntry> } {
  const log = logUrlOf(config.publicUrl, SHARED_LOG_NAME);
  return {
    services: {
      platform: {
        description:
          'The agent platform: agents, their lifecycle and the governed-action pipeline (this service).',
        url: config.platformPublicUrl,
        health_url: `${config.platformPublicUrl}/health`,
        openapi_url: `${config.platformPublicUrl}/openapi.json`,
      },
      clearinghouse: {
        description:
          'The governance evidence clearinghouse: tenants, evidence admitted through gates G1–G5, reports, webhooks.',
        url: config.publicUrl,
        health_url: `${config.publicUrl}/health`,
        openapi_url: `${config.publicUrl}/openapi.json`,
      },
      transparency_log: {
        description:
          "The public Merkle transparency log (RFC 9162) both services' leaves go to: signed tree heads, inclusion and consistency proofs, no credentials needed.",
        url: log,
        checkpoint_url: `${log}/checkpoint`,
        sth_url: `${log}/sth`,
        keys_url: `${log}/keys`,
        logs_url: `${config.publicUrl}/gov/v1/logs`,
      },
    },
  };
}

/** What each process runs, in both deployments (`npm start`, and each role of the topology). */
const PROCESSES: readonly { role: ProcessRole; start: string; runs: readonly string[] }[] = [
  {
    role: 'all',
    start: 'npm start',
    runs: [
      'the clearinghouse on GOV_PORT and the agent platform on GOV_PLATFORM_PORT',
      'the log sequencer (every log) and the anchorer',
      'the read-model projectors (on their own thread)',
      'webhook delivery (on its own thread)',
    ],
  },
  {
    role: 'command-api',
    start: 'npm run start:command-api',
    runs: ["the clearinghouse's commands (every non-GET route); any number side by side"],
  },
  {
    role: 'read-api',
    start: 'npm run start:read-api',
    runs: ["the clearinghouse's reads (every GET route) and the public log; any number side by side"],
  },
  {
    role: 'projectors',
    start: 'npm run start:projectors',
    runs: [
      'the log sequencers, one writer per log under a lease, and the anchorer',
      'the read-model projectors, each a single writer under a lease',
      'with Kafka, the forwarder of committed events to the bus',
    ],
  },
  {
    role: 'dispatcher',
    start: 'npm run start:dispatcher',
    runs: ['webhook delivery from the bus'],
  },
  {
    role: 'platform',
    start: 'npm run start:platform',
    runs: ["the agent platform's routes on GOV_PLATFORM_PORT, following the log the projectors sign"],
  },
];

export interface Architecture {
  deployment: 'embedded' | 'production-topology';
  /** The role of the process that answered. */
  role: ProcessRole;
  services: ReturnType<typeof serviceMap>['services'];
  core: {
    description: string;
    event_store: { adapter: string | null; description: string };
    read_store: { adapter: string | null; description: string };
    bus: { adapter: string | null; description: string };
  };
  log: { description: string; url: string };
  processes: typeof PROCESSES;
}

/** The capability map, with the adapters of the process that answers. */
export function architecture(
  config: Urls,
  bindings: Record<string, string>,
  role: ProcessRole,
): Architecture {
  return {
    deployment: role === 'all' ? 'embedded' : 'production-topology',
    role,
    services: serviceMap(config).services,
    core: {
      description:
        'Both services run on one event-sourced core: every command validates its input against a JSON Schema and appends domain events to the event store, the only source of truth; read models are projections of those events and can be rebuilt from them.',
      event_store: {
        adapter: bindings.event_store ?? null,
        description: 'Append-only streams with expected revisions (SQLite embedded, or EventStoreDB).',
      },
      read_store: {
        adapter: bindings.read_store ?? null,
        description:
          'Read models, projector checkpoints and single-writer leases (SQLite embedded, or MongoDB).',
      },
      bus: {
        adapter: bindings.bus ?? null,
        description:
          'Carries committed events to consumers in other processes (in-process in the embedded server, or Kafka); null where this process has none.',
      },
    },
    log: {
      description:
        'One public Merkle transparency log per name (shared, test, one per L4 tenant), each with one sequencer that signs its tree heads; the platform admits its leaves to the same logs as the clearinghouse, and a leaf holds commitments, never content.',
      url: logUrlOf(config.publicUrl, SHARED_LOG_NAME),
    },
    processes: PROCESSES,
  };
}
