/**
 * The bus topic is created by the service with its partitions and retention, never on first use (the
 * brokers run with auto.create.topics.enable=false), and an existing topic is checked against the
 * configuration rather than trusted.
 */
import { type Admin, ConfigResourceTypes, ConfigSource } from 'kafkajs';
import { integerReader } from '../../runtime/support/env-integer';

export interface TopicSettings {
  name: string;
  /** Events are keyed by tenant: a tenant's events stay in one partition, in order. */
  partitions: number;
  replicationFactor: number;
  /** How long the broker keeps events (`retention.ms`; -1 keeps them forever). */
  retentionMs: number;
  /** Replicas that must have an event before `acks=all` acknowledges it (`min.insync.replicas`). */
  minInsyncReplicas: number;
  /**
   * Largest record batch the topic accepts (`max.message.bytes`): above the largest event the store
   * accepts, or that event could never be forwarded.
   */
  maxMessageBytes: number;
}

export interface KafkaSettings {
  brokers: string[];
  clientId: string;
  /** Prepended to each consumer group name (e.g. `dispatcher`), so deployments can share a cluster. */
  groupIdPrefix: string;
  topic: TopicSettings;
}

export class TopicMismatchError extends Error {
  override readonly name = 'TopicMismatchError';
}

/**
 * Creates the topic when it is missing; when it exists, refuses it if it has fewer partitions than
 * configured and brings its retention and min.insync.replicas to the configured values. Returns the
 * topic's partition count (more than configured is accepted: order per tenant holds either way).
 */
export async function ensureTopic(admin: Admin, settings: TopicSettings): Promise<number> {
  const created = await admin.createTopics({
    waitForLeaders: true,
    topics: [
      {
        topic: settings.name,
        numPartitions: settings.partitions,
        replicationFactor: settings.replicationFactor,
        configEntries: managedConfig(settings),
      },
    ],
  });
  if (created) return settings.partitions;
  const partitions = await partitionCount(admin, settings.name);
  if (partitions < settings.partitions)
    throw new TopicMismatchError(
      `Kafka topic '${settings.name}' has ${partitions} partitions but ${settings.partitions} are configured. ` +
        'It is not repartitioned automatically: adding partitions moves tenants to other partitions and breaks ' +
        `their event order. Configure ${partitions} partitions (GOV_KAFKA_PARTITIONS), or add partitions deliberately while the ` +
        'forwarder is stopped and every consumer group has caught up.',
    );
  await alignConfig(admin, settings);
  return partitions;
}

function managedConfig(settings: TopicSettings): { name: string; value: string }[] {
  return [
    { name: 'retention.ms', value: String(settings.retentionMs) },
    { name: 'min.insync.replicas', value: String(settings.minInsyncReplicas) },
    { name: 'max.message.bytes', value: String(settings.maxMessageBytes) },
  ];
}

async function partitionCount(admin: Admin, topic: string): Promise<number> {
  const { topics } = await admin.fetchTopicMetadata({ topics: [topic] });
  const metadata = topics.find((candidate) => candidate.name === topic);
  if (!metadata) throw new Error(`Kafka topic '${topic}' exists but its metadata could not be read`);
  return metadata.partitions.length;
}

/**
 * AlterConfigs replaces the whole set of a topic's own settings, so the overrides an operator set
 * (segment size, cleanup policy, …) are sent back along with the managed ones, or they would be lost.
 */
async function alignConfig(admin: Admin, settings: TopicSettings): Promise<void> {
  const { resources } = await admin.describeConfigs({
    includeSynonyms: false,
    resources: [{ type: ConfigResourceTypes.TOPIC, name: settings.name }],
  });
  const entries = resources[0]?.configEntries ?? [];
  const overrides = new Map(
    entries
      .filter((entry) => entry.configSource === ConfigSource.TOPIC_CONFIG)
      .map((entry) => [entry.configName, entry] as const),
  );
  const wanted = managedConfig(settings);
  const current = (name: string) => entries.find((entry) => entry.configName === name)?.configValue;
  const changed = wanted.filter(({ name, value }) => current(name) !== value);
  if (changed.length === 0) return;
  const hidden = [...overrides.values()].filter((entry) => entry.isSensitive || entry.configValue === null);
  if (hidden.length > 0)
    throw new TopicMismatchError(
      `Kafka topic '${settings.name}' needs ${changed.map((entry) => entry.name).join(', ')} changed, but it ` +
        `has sensitive settings (${hidden.map((entry) => entry.configName).join(', ')}) that cannot be read ` +
        'back and would be reset; change them with kafka-configs.sh instead.',
    );
  const merged = new Map([...overrides].map(([name, entry]) => [name, entry.configValue]));
  for (const { name, value } of wanted) merged.set(name, value);
  await admin.alterConfigs({
    validateOnly: false,
    resources: [
      {
        type: ConfigResourceTypes.TOPIC,
        name: settings.name,
        configEntries: [...merged].map(([name, value]) => ({ name, value })),
      },
    ],
  });
}

const DAY_MS = 24 * 60 * 60 * 1000;
/** Kafka's own limit on topic names. */
const TOPIC_NAME = /^[a-zA-Z0-9._-]{1,249}$/;

/**
 * Reads the Kafka settings from the environment. `settings` is null when GOV_KAFKA_BROKERS is not set
 * (the embedded in-process bus is used); every problem is reported, each naming its variable.
 */
export function kafkaSettingsFromEnv(env: NodeJS.ProcessEnv): {
  settings: KafkaSettings | null;
  problems: string[];
} {
  const problems: string[] = [];
  const integer = integerReader(env, problems);
  const brokers = (env.GOV_KAFKA_BROKERS ?? '')
    .split(',')
    .map((entry) => entry.trim())
    .filter((entry) => entry !== '');
  if (brokers.length === 0) {
    const stray = Object.keys(env).filter(
      (name) => name.startsWith('GOV_KAFKA_') && name !== 'GOV_KAFKA_BROKERS' && env[name],
    );
    if (stray.length > 0)
      problems.push(`${stray.sort().join(', ')} set, but GOV_KAFKA_BROKERS is not (host:port,host:port,…)`);
    return { settings: null, problems };
  }
  for (const broker of brokers) {
    const match = /^(\[[0-9a-fA-F:.]+\]|[^\s:[\]]+):(\d{1,5})$/.exec(broker);
    if (!match || Number(match[2]) < 1 || Number(match[2]) > 65535)
      problems.push(`GOV_KAFKA_BROKERS entry '${broker}' is not host:port`);
  }
  const name = env.GOV_KAFKA_TOPIC || 'gov.events';
  if (!TOPIC_NAME.test(name) || name === '.' || name === '..')
    problems.push(`GOV_KAFKA_TOPIC must be 1 to 249 letters, digits, '.', '_' or '-' (got '${name}')`);
  const replicationFactor = integer('GOV_KAFKA_REPLICATION_FACTOR', 1, 1, 32);
  // With three replicas or more, an acknowledged event survives the loss of one broker.
  const minInsyncReplicas = integer(
    'GOV_KAFKA_MIN_INSYNC_REPLICAS',
    replicationFactor >= 3 ? 2 : 1,
    1,
    replicationFactor,
  );
  const retentionMs = retention(env.GOV_KAFKA_RETENTION_MS, problems);
  // An event as JSON, with its headers and the record batch framing, must fit in one message.
  const maxEventBytes = Number(env.GOV_MAX_EVENT_BYTES) || 1024 * 1024;
  const maxMessageBytes = integer(
    'GOV_KAFKA_MAX_MESSAGE_BYTES',
    Math.max(2 * maxEventBytes, 2 * 1024 * 1024),
    maxEventBytes + 64 * 1024,
    1024 * 1024 * 1024,
  );
  const groupIdPrefix = env.GOV_KAFKA_GROUP_PREFIX ?? '';
  if (groupIdPrefix !== '' && !TOPIC_NAME.test(groupIdPrefix))
    problems.push(`GOV_KAFKA_GROUP_PREFIX must be letters, digits, '.', '_' or '-' (got '${groupIdPrefix}')`);
  return {
    problems,
    settings: {
      brokers,
      clientId: env.GOV_KAFKA_CLIENT_ID || 'gov-clearinghouse',
      groupIdPrefix,
      topic: {
        name,
        // One: today's dispatcher projects in global commit order, which only a single partition keeps
        // (runtime/stores/stores.ts refuses more for it). Keys stay per tenant, ready for more partitions.
        partitions: integer('GOV_KAFKA_PARTITIONS', 1, 1, 10_000),
        replicationFactor,
        retentionMs,
        minInsyncReplicas,
        maxMessageBytes,
      },
    },
  };
}

/** GOV_KAFKA_RETENTION_MS: -1 keeps events forever; otherwise at least a minute. */
function retention(raw: string | undefined, problems: string[]): number {
  if (raw === undefined || raw === '') return 7 * DAY_MS;
  const value = Number(raw);
  if (value === -1 || (Number.isSafeInteger(value) && value >= 60_000)) return value;
  problems.push(
    `GOV_KAFKA_RETENTION_MS must be -1 (keep events forever) or milliseconds, at least 60000 (got '${raw}')`,
  );
  return 7 * DAY_MS;
}
