/**
 * External servers a test suite needs (MongoDB-wire, Kafka, EventStoreDB). Each is named by an
 * environment variable; `.ci/run` starts FerretDB and Kafka and sets theirs. Without it the suite is
 * skipped, and its title says which variable is missing and what would provide it, unless
 * GOV_TEST_REQUIRE_SERVERS=1 (set by `.ci/run`), where a missing server is a failure, not a skip.
 */
export interface ExternalServer {
  /** The environment variable naming the server. */
  variable: string;
  /** What provides it, for the skip message. */
  provider: string;
}

export const MONGODB_SERVER: ExternalServer = {
  variable: 'GOV_TEST_MONGODB_URL',
  provider: '.ci/run starts FerretDB v1.24.2 and sets it to mongodb://127.0.0.1:27017',
};

export const KAFKA_SERVER: ExternalServer = {
  variable: 'GOV_TEST_KAFKA_BROKERS',
  provider: '.ci/run starts Apache Kafka 3.9 (KRaft) and sets it to 127.0.0.1:9092',
};

/** The value of the server's variable, or null when the suite must be skipped. */
function serverAddress(server: ExternalServer): string | null {
  const value = process.env[server.variable]?.trim();
  if (value) return value;
  if (process.env.GOV_TEST_REQUIRE_SERVERS === '1')
    throw new Error(
      `${server.variable} is not set, but GOV_TEST_REQUIRE_SERVERS=1 requires it (${server.provider})`,
    );
  return null;
}

/**
 * `describe` when the server is configured; otherwise `describe.skip` with a title naming the missing
 * variable, so the skip reads as the condition it waits for.
 */
export function describeWithServer(
  server: ExternalServer,
  title: string,
  body: (address: string) => void,
): void {
  describeWithServers([server], title, ([address]) => body(address!));
}

/** `describeWithServer` for a suite that needs several servers (addresses in the same order). */
export function describeWithServers(
  servers: readonly ExternalServer[],
  title: string,
  body: (addresses: string[]) => void,
): void {
  const addresses = servers.map(serverAddress);
  const missing = servers.filter((_, i) => addresses[i] === null);
  if (missing.length > 0) {
    const reasons = missing.map((server) => `${server.variable} is not set; ${server.provider}`);
    describe.skip(`${title} (skipped: ${reasons.join('; ')})`, () => {
      it('needs the servers', () => undefined);
    });
    return;
  }
  describe(title, () => body(addresses as string[]));
}
