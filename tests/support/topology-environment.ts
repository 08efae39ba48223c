/**
 * The production topology's roles and the environment each is started with, shared by the tests that
 * start it from TypeScript (topology.ts) and the benchmark that starts it built (bench/topology.bench.ts).
 */
import path from 'node:path';

export type RoleName =
  | 'projectors-a'
  | 'projectors-b'
  | 'dispatcher'
  | 'read-api'
  | 'command-api-a'
  | 'command-api-b';

/** Each role's entry point under runtime/roles/ (without its extension: .ts or, built, .js). */
export const ROLE_ENTRY: Record<RoleName, string> = {
  'projectors-a': 'projectors',
  'projectors-b': 'projectors',
  dispatcher: 'dispatcher',
  'read-api': 'read-api',
  'command-api-a': 'command-api',
  'command-api-b': 'command-api',
};

export interface TopologyStores {
  dataDir: string;
  mongoUrl: string;
  database: string;
  kafkaBrokers: string;
}

/** What every role is given (each adds its own GOV_PORT): the stores shared, the read API public. */
export function topologyEnvironment(
  stores: TopologyStores,
  ports: Record<RoleName, number>,
): NodeJS.ProcessEnv {
  return {
    GOV_HOST: '127.0.0.1',
    GOV_DATA_DIR: stores.dataDir,
    GOV_EVENT_STORE_FILE: path.join(stores.dataDir, 'events.db'),
    GOV_READ_STORE_FILE: '',
    GOV_READ_STORE_URL: stores.mongoUrl,
    GOV_READ_STORE_DATABASE: stores.database,
    GOV_KAFKA_BROKERS: stores.kafkaBrokers,
    GOV_KAFKA_TOPIC: 'gov.events',
    GOV_KAFKA_PARTITIONS: '1',
    GOV_PUBLIC_URL: `http://127.0.0.1:${ports['read-api']}`,
    GOV_WEBHOOK_ALLOW: '127.0.0.1',
    GOV_LEASE_TTL_MS: '2000',
    GOV_LOG_LEVEL: 'warn',
  };
}
