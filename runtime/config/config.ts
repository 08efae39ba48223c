import path from 'node:path';
import { type KafkaSettings, kafkaSettingsFromEnv } from '../../adapters/kafka/topic';
import { parseVaultMasterKey } from '../../domain/platform/vault';
import {
  type Ed25519Implementation,
  ed25519Implementation,
  KeyFormatError,
  loadVerifierKey,
  SIGNATURE_TYPE_COSIGNATURE_V1,
  type VerifierKey,
} from '../../merkle-core';
import { integerReader } from '../support/env-integer';

/** Everything the process can be configured with, read once from the environment. */
export interface Config {
  /** GOV_HOST: interface to listen on. */
  host: string;
  /** GOV_PORT: HTTP port of the all-in-one server. */
  port: number;
  /** GOV_PUBLIC_URL: base URL printed and used in links (log_url, dashboard URL). */
  publicUrl: string;
  /**
   * GOV_PLATFORM_PORT: HTTP port of the agent platform in the all-in-one server (default 8081; 0: one
   * the system chooses; `off`: the all-in-one server serves the clearinghouse alone, null here). The
   * platform is the second service, beside the clearinghouse on `port`.
   */
  platformPort: number | null;
  /** GOV_PLATFORM_PUBLIC_URL: the platform's base URL (sign-in links, CSRF origin, proof links). */
  platformPublicUrl: string;
  /**
   * GOV_CLEARINGHOUSE_URL: where a platform process of the production topology reaches the
   * clearinghouse for its /health (default `publicUrl`); the embedded server checks its own.
   */
  clearinghouseUrl: string;
  /** GOV_LOG_ORIGIN: the log's name in checkpoints (C2SP origin); fixed by the log key once created. */
  logOrigin: string;
  /** GOV_DATA_DIR: folder of the embedded stores. */
  dataDir: string;
  /** GOV_EVENT_STORE_FILE: SQLite file of the event store. */
  eventStoreFile: string;
  /** GOV_READ_STORE_FILE: SQLite file of the read models and checkpoints (when no GOV_READ_STORE_URL). */
  readStoreFile: string;
  /**
   * GOV_DISPATCH_STORE_FILE: SQLite file of the dispatcher's state (webhooks, delivery queue and log),
   * apart from the read models so that deliveries never wait for their writes nor hold them up.
   */
  dispatchStoreFile: string;
  /**
   * GOV_EVENT_STORE_URL: an EventStoreDB connection string (`esdb://host:2113?tls=false`); when unset,
   * the embedded SQLite event store in GOV_EVENT_STORE_FILE.
   */
  eventStoreUrl: string | null;
  /** GOV_READ_STORE_URL: a MongoDB connection string (`mongodb://host:27017`); unset: SQLite. */
  readStoreUrl: string | null;
  /** GOV_READ_STORE_DATABASE: the MongoDB database of the read models (default `gov`). */
  readStoreDatabase: string;
  /**
   * GOV_LEASE_TTL_MS: how long a single writer (sequencer, projector, forwarder) that stopped renewing
   * keeps its lease before a standby process takes over.
   */
  leaseTtlMs: number;
  /** GOV_KAFKA_*: the Kafka bus (adapters/kafka/topic.ts); null when GOV_KAFKA_BROKERS is unset. */
  kafka: KafkaSettings | null;
  /** GOV_LOG_LEVEL: pino level. */
  logLevel: 'fatal' | 'error' | 'warn' | 'info' | 'debug' | 'trace' | 'silent';
  /** GOV_MAX_BODY_BYTES: largest accepted request body. */
  maxBodyBytes: number;
  /** GOV_MAX_EVENT_BYTES: largest event the store accepts. */
  maxEventBytes: number;
  /** GOV_SHUTDOWN_GRACE_MS: how long SIGTERM waits for in-flight requests. */
  shutdownGraceMs: number;
  /** GOV_HEADERS_TIMEOUT_MS: how long a client may take to send a request's headers (then 408). */
  headersTimeoutMs: number;
  /** GOV_REQUEST_TIMEOUT_MS: how long a client may take to send a whole request, body included (then 408). */
  requestTimeoutMs: number;
  /** GOV_REGISTRATIONS_PER_IP_HOUR: POST /auto-register requests one client address may make per hour. */
  registrationsPerIpHour: number;
  /**
   * GOV_SMTP_URL: the SMTP server the platform's sign-in links are sent through (`smtp://user:password@host:587`,
   * `smtps://…` for implicit TLS); unset: each link is written to the server log instead (development only).
   */
  smtpUrl: string | null;
  /** GOV_MAIL_FROM: the sender of the platform's mail (default `no-reply@<host of GOV_PLATFORM_PUBLIC_URL>`). */
  mailFrom: string;
  /**
   * GOV_VAULT_KEY: the platform vault's master key, 64 hex characters (32 bytes); unset: the key file
   * `<data>/keys/vault-master.key`, made at the first start. Every process of a deployment needs the same.
   */
  vaultKey: Buffer | null;
  /** GOV_SIGN_INS_PER_IP_HOUR: sign-in links one client address may ask for per clock hour (default 20). */
  signInsPerIpHour: number;
  /**
   * GOV_TRUST_PROXY_HOPS: how many reverse proxies in front of the service append to X-Forwarded-For;
   * 0 (the default) ignores the header and uses the connection's address.
   */
  trustProxyHops: number;
  /**
   * GOV_WEBHOOK_ALLOW: comma-separated IPs or CIDRs webhook targets may resolve to although they are
   * loopback, private, link-local or metadata addresses (refused otherwise), e.g. `127.0.0.1,10.0.0.0/8`.
   */
  webhookAllow: string[];
  /** GOV_WEBHOOK_TIMEOUT_MS: how long one delivery attempt waits for the receiver (spec: 10 s). */
  webhookTimeoutMs: number;
  /**
   * GOV_INTEGRATION_TIMEOUT_MS: how long an admission waits for its leaf to be under a signed tree head
   * and in the read models before it answers 503 (the leaf stays stored and is integrated later).
   */
  integrationTimeoutMs: number;
  /**
   * GOV_ANCHOR_INTERVAL_MS: how often the shared log's sequencer admits each other log's latest signed
   * checkpoint, when it changed since its last anchor, as a leaf of the shared log.
   */
  anchorIntervalMs: number;
  /**
   * GOV_VALIDATOR_THREAD: `1` (the default) runs the in-process validators' examinations and
   * signatures on a thread of their own, off the admission path's core; `0` runs them inline.
   */
  validatorThread: boolean;
  /**
   * GOV_PROJECTION_THREAD: `1` (the default) runs the embedded server's read-model projectors on a
   * thread of their own, with their own store connections, off the admission path's core; `0` inline.
   */
  projectionThread: boolean;
  /**
   * GOV_EVENT_WRITER_THREAD: `1` (the default) commits the embedded event store's group commits, and
   * the fsync each waits for, on a thread of their own instead of blocking the main thread; `0` inline.
   */
  eventWriterThread: boolean;
  /**
   * GOV_WITNESS_KEYS: comma-separated note verifier keys (`name+keyid+base64`, cosignature/v1) of the
   * witnesses whose cosignatures the log accepts and serves; empty: no witness is trusted.
   */
  witnessKeys: VerifierKey[];
  /**
   * GOV_ED25519: which library writes the service's Ed25519 signatures (votes, envelopes, tree heads,
   * cosignatures): `libsodium` (the default where the optional sodium-native package is installed) or
   * `node:crypto`. Both write the same bytes; libsodium about twice as fast.
   */
  ed25519: Ed25519Implementation;
}

export class ConfigError extends Error {
  override readonly name = 'ConfigError';
}

const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;

/** Parses the environment; every problem is reported at once, naming the variable. */
export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const problems: string[] = [];
  const integer = integerReader(env, problems);
  const port = integer('GOV_PORT', 8080, 0, 65535);
  const dataDir = path.resolve(env.GOV_DATA_DIR || 'data');
  const logLevel = (env.GOV_LOG_LEVEL || 'info') as Config['logLevel'];
  if (!LOG_LEVELS.includes(logLevel)) problems.push(`GOV_LOG_LEVEL must be one of ${LOG_LEVELS.join(', ')}`);
  const headersTimeoutMs = integer('GOV_HEADERS_TIMEOUT_MS', 10_000, 100, 600_000);
  const requestTimeoutMs = integer('GOV_REQUEST_TIMEOUT_MS', 30_000, 100, 600_000);
  // Node applies both to a request's headers; a longer headers timeout would never be reached.
  if (requestTimeoutMs < headersTimeoutMs)
    problems.push(
      `GOV_REQUEST_TIMEOUT_MS (${requestTimeoutMs}) must be at least GOV_HEADERS_TIMEOUT_MS (${headersTimeoutMs})`,
    );
  const publicUrl = (env.GOV_PUBLIC_URL || `http://localhost:${port}`).replace(/\/+$/, '');
  if (!/^https?:\/\/[^\s/]+/.test(publicUrl))
    problems.push(`GOV_PUBLIC_URL must be an http(s) URL (got '${publicUrl}')`);
  const platformOff = env.GOV_PLATFORM_PORT?.trim().toLowerCase() === 'off';
  const platformPort = platformOff ? null : integer('GOV_PLATFORM_PORT', 8081, 0, 65535);
  if (platformPort !== null && platformPort !== 0 && platformPort === port)
    problems.push(`GOV_PLATFORM_PORT must differ from GOV_PORT (both ${port})`);
  const platformPublicUrl = (
    env.GOV_PLATFORM_PUBLIC_URL || `http://localhost:${platformPort ?? 8081}`
  ).replace(/\/+$/, '');
  if (!/^https?:\/\/[^\s/]+/.test(platformPublicUrl))
    problems.push(`GOV_PLATFORM_PUBLIC_URL must be an http(s) URL (got '${platformPublicUrl}')`);
  const clearinghouseUrl = (env.GOV_CLEARINGHOUSE_URL || publicUrl).replace(/\/+$/, '');
  if (!/^https?:\/\/[^\s/]+/.test(clearinghouseUrl))
    problems.push(`GOV_CLEARINGHOUSE_URL must be an http(s) URL (got '${clearinghouseUrl}')`);
  const config: Config = {
    host: env.GOV_HOST || '0.0.0.0',
    port,
    publicUrl,
    platformPort,
    platformPublicUrl,
    clearinghouseUrl,
    logOrigin: env.GOV_LOG_ORIGIN || `${publicUrl.replace(/^https?:\/\//, '')}/gov/v1/log`,
    dataDir,
    eventStoreFile: path.resolve(env.GOV_EVENT_STORE_FILE || path.join(dataDir, 'events.db')),
    readStoreFile: path.resolve(env.GOV_READ_STORE_FILE || path.join(dataDir, 'read-models.db')),
    dispatchStoreFile: path.resolve(env.GOV_DISPATCH_STORE_FILE || path.join(dataDir, 'dispatch.db')),
    eventStoreUrl: connectionString(env, 'GOV_EVENT_STORE_URL', ['esdb:', 'esdb+discover:'], problems),
    readStoreUrl: connectionString(env, 'GOV_READ_STORE_URL', ['mongodb:', 'mongodb+srv:'], problems),
    readStoreDatabase: env.GOV_READ_STORE_DATABASE || 'gov',
    leaseTtlMs: integer('GOV_LEASE_TTL_MS', 5000, 500, 600_000),
    kafka: kafkaSettings(env, problems),
    logLevel,
    maxBodyBytes: integer('GOV_MAX_BODY_BYTES', 256 * 1024, 1024, 64 * 1024 * 1024),
    maxEventBytes: integer('GOV_MAX_EVENT_BYTES', 1024 * 1024, 1024, 16 * 1024 * 1024),
    shutdownGraceMs: integer('GOV_SHUTDOWN_GRACE_MS', 10_000, 0, 600_000),
    headersTimeoutMs,
    requestTimeoutMs,
    registrationsPerIpHour: integer('GOV_REGISTRATIONS_PER_IP_HOUR', 10, 1, 1_000_000),
    smtpUrl: connectionString(env, 'GOV_SMTP_URL', ['smtp:', 'smtps:'], problems),
    mailFrom: env.GOV_MAIL_FROM?.trim() || `no-reply@${hostOf(platformPublicUrl)}`,
    vaultKey: vaultKeySetting(env, problems),
    signInsPerIpHour: integer('GOV_SIGN_INS_PER_IP_HOUR', 20, 1, 1_000_000),
    trustProxyHops: integer('GOV_TRUST_PROXY_HOPS', 0, 0, 10),
    webhookAllow: (env.GOV_WEBHOOK_ALLOW ?? '')
      .split(',')
      .map((entry) => entry.trim())
      .filter((entry) => entry !== ''),
    webhookTimeoutMs: integer('GOV_WEBHOOK_TIMEOUT_MS', 10_000, 100, 60_000),
    integrationTimeoutMs: integer('GOV_INTEGRATION_TIMEOUT_MS', 20_000, 100, 600_000),
    anchorIntervalMs: integer('GOV_ANCHOR_INTERVAL_MS', 10_000, 100, 3_600_000),
    validatorThread: integer('GOV_VALIDATOR_THREAD', 1, 0, 1) === 1,
    projectionThread: integer('GOV_PROJECTION_THREAD', 1, 0, 1) === 1,
    eventWriterThread: integer('GOV_EVENT_WRITER_THREAD', 1, 0, 1) === 1,
    witnessKeys: parseWitnessKeys(env.GOV_WITNESS_KEYS ?? '', problems),
    ed25519: ed25519Setting(env, problems),
  };
  if (problems.length > 0) throw new ConfigError(`invalid configuration:\n  ${problems.join('\n  ')}`);
  return config;
}

/** GOV_VAULT_KEY as its 32 bytes; the problem never quotes the value (it is a secret). */
function vaultKeySetting(env: NodeJS.ProcessEnv, problems: string[]): Buffer | null {
  const text = env.GOV_VAULT_KEY ?? '';
  if (text.trim() === '') return null;
  const key = parseVaultMasterKey(text);
  if (!key)
    problems.push('GOV_VAULT_KEY must be 64 hex characters (32 bytes), e.g. from `openssl rand -hex 32`');
  return key;
}

/** The signing library in use; ed25519-signer reads the same variable (worker threads inherit it). */
function ed25519Setting(env: NodeJS.ProcessEnv, problems: string[]): Ed25519Implementation {
  const wanted = env.GOV_ED25519 || '';
  if (wanted !== '' && wanted !== 'libsodium' && wanted !== 'node:crypto')
    problems.push(`GOV_ED25519 must be libsodium or node:crypto (got '${wanted}')`);
  const inUse = ed25519Implementation(env);
  if (wanted === 'libsodium' && inUse !== 'libsodium')
    problems.push('GOV_ED25519 is libsodium, but the optional sodium-native package is not installed');
  return inUse;
}

function kafkaSettings(env: NodeJS.ProcessEnv, problems: string[]): KafkaSettings | null {
  const parsed = kafkaSettingsFromEnv(env);
  problems.push(...parsed.problems);
  return parsed.settings;
}

/** A connection string of one of `schemes`, or null when the variable is unset or empty. */
function hostOf(url: string): string {
  try {
    return new URL(url).hostname || 'localhost';
  } catch {
    return 'localhost';
  }
}

function connectionString(
  env: NodeJS.ProcessEnv,
  name: string,
  schemes: readonly string[],
  problems: string[],
): string | null {
  const raw = env[name]?.trim();
  if (!raw) return null;
  let scheme: string;
  try {
    scheme = new URL(raw).protocol;
  } catch {
    scheme = '';
  }
  if (!schemes.includes(scheme)) {
    problems.push(`${name} must be a ${schemes.map((s) => `${s}//`).join(' or ')} connection string`);
    return null;
  }
  return raw;
}

/** GOV_WITNESS_KEYS: each entry a cosignature/v1 verifier key whose key ID matches; repeats count once. */
function parseWitnessKeys(raw: string, problems: string[]): VerifierKey[] {
  const keys = new Map<string, VerifierKey>();
  const entries = raw
    .split(',')
    .map((entry) => entry.trim())
    .filter((entry) => entry !== '');
  entries.forEach((entry, i) => {
    const where = `GOV_WITNESS_KEYS entry ${i + 1} ('${entry}')`;
    let key: VerifierKey;
    try {
      key = loadVerifierKey(entry);
    } catch (error) {
      if (!(error instanceof KeyFormatError)) throw error;
      problems.push(`${where} is not a note verifier key <name>+<key id>+<base64>: ${error.message}`);
      return;
    }
    if (key.type !== SIGNATURE_TYPE_COSIGNATURE_V1) {
      problems.push(
        `${where} is a log (Ed25519 0x01) key; witnesses cosign with cosignature/v1 (0x04) keys, as \`gov witness keygen\` prints them`,
      );
      return;
    }
    keys.set(key.text, key);
  });
  return [...keys.values()];
}
