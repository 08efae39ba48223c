/**
 * The agent platform as a second service of the embedded server: its own port, its own error shape
 * (`{error, detail}`) from the checks both services share, and its own OpenAPI document, while the
 * clearinghouse beside it keeps its own.
 */
import fs from 'node:fs';
import path from 'node:path';
import { TIER_LIMITS } from '../domain/governance/tier-limits';
import { ACTION_TYPES, TOOL_CLASSES } from '../domain/platform/action-gates';
import { FEATURES, featureGate, TIERS } from '../domain/platform/capabilities';
import { costModel } from '../domain/platform/cost-model';
import costEstimateSchema from '../event-schemas/platform/commands/cost-estimate.json';
import { validateResponse } from '../event-schemas/validation';
import { sequencerWritingHere } from '../runtime/wiring/platform-upstream';
import { REPO_ROOT } from './support/children';
import { startTestServer, type TestServer } from './support/governance-client';

let server: TestServer;

beforeAll(async () => {
  server = await startTestServer('gov-platform-service-');
}, 60_000);

afterAll(async () => {
  await server?.dispose();
});

const platform = (route: string, init?: RequestInit) => fetch(`${server.server.platformUrl}${route}`, init);

/** The body of a platform answer, checked against its response schema. */
async function valid<T>(response: Response, schema: Parameters<typeof validateResponse>[0]): Promise<T> {
  const body = (await response.json()) as T;
  expect(validateResponse(schema, body)).toEqual({ ok: true, value: body });
  return body;
}

const MCP_SDK_VERSION = (
  JSON.parse(
    fs.readFileSync(path.join(REPO_ROOT, 'node_modules/@modelcontextprotocol/sdk/package.json'), 'utf8'),
  ) as { version: string }
).version;

describe('the platform beside the clearinghouse', () => {
  it('given the embedded server, when GET /v1/version on the platform port, then the platform names itself', async () => {
    expect(server.server.platformUrl).not.toBe(server.server.url);
    const response = await platform('/v1/version');
    expect(response.status).toBe(200);
    expect(await valid(response, 'platform-version')).toEqual({
      service: 'gov-agent-platform',
      version: expect.any(String),
      runtime: `node ${process.version}`,
      engine: { package: 'gov-clearinghouse', version: expect.any(String), mcp_sdk: MCP_SDK_VERSION },
    });
  });

  it('given an unknown path, when asked, then 404 in the platform shape {error, detail}', async () => {
    const response = await platform('/v1/nothing-here');
    expect(response.status).toBe(404);
    expect(await response.json()).toEqual({
      error: 'not_found',
      detail: expect.stringContaining('/v1/nothing-here'),
    });
  });

  it('given a known path and another method, when asked, then 405 with Allow, in the platform shape', async () => {
    const response = await platform('/v1/version', { method: 'DELETE' });
    expect(response.status).toBe(405);
    expect(response.headers.get('allow')).toBe('GET, HEAD');
    expect(await response.json()).toEqual({ error: 'method_not_allowed', detail: expect.any(String) });
  });

  it('given malformed JSON or an unknown query parameter, when asked, then 400 invalid_request naming it', async () => {
    const malformed = await platform('/v1/version', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{',
    });
    expect(malformed.status).toBe(400);
    expect(await malformed.json()).toEqual({
      error: 'invalid_request',
      detail: expect.stringContaining('not valid JSON'),
    });
    const query = await platform('/v1/version?x=1');
    expect(query.status).toBe(400);
    const body = (await query.json()) as { error: string; detail: string };
    expect(body).toEqual({ error: 'invalid_request', detail: expect.stringContaining('x') });
  });

  it('given the clearinghouse port, when an unknown path, then its own error shape is unchanged', async () => {
    const response = await fetch(`${server.server.url}/v1/nothing-here`);
    expect(response.status).toBe(404);
    expect(await response.json()).toEqual({
      error: 'NOT_FOUND',
      message: expect.any(String),
      correlation_id: expect.any(String),
    });
  });

  it('given GET /openapi.json on the platform, then an OpenAPI 3.1 document whose every $ref resolves', async () => {
    const response = await platform('/openapi.json');
    expect(response.status).toBe(200);
    const document = (await response.json()) as Record<string, unknown>;
    expect(document.openapi).toBe('3.1.0');
    expect((document.info as { title: string }).title).toBe('Agent Platform API');
    expect(Object.keys(document.paths as object)).toEqual(
      expect.arrayContaining(['/v1/version', '/openapi.json']),
    );
    const unresolved: string[] = [];
    const visit = (node: unknown): void => {
      if (node === null || typeof node !== 'object') return;
      if (Array.isArray(node)) {
        for (const item of node) visit(item);
        return;
      }
      for (const [key, value] of Object.entries(node)) {
        if (key === '$ref' && typeof value === 'string') {
          const target = value
            .replace(/^#\//, '')
            .split('/')
            .reduce<unknown>((at, part) => (at as Record<string, unknown> | undefined)?.[part], document);
          if (target === undefined) unresolved.push(value);
        } else visit(value);
      }
    };
    visit(document);
    expect(unresolved).toEqual([]);
  });
});

describe('the public service endpoints', () => {
  interface Health {
    status: string;
    upstream: Record<string, string>;
    bindings: Record<string, boolean>;
    detail?: string;
  }

  it('given the embedded server, when GET /health, then 200 in the spec shape with every upstream asked and healthy', async () => {
    const response = await platform('/health');
    expect(response.status).toBe(200);
    const health = await valid<Health>(response, 'platform-health');
    expect(health).toEqual({
      status: 'ok',
      service: 'gov-agent-platform',
      version: expect.any(String),
      runtime: `node ${process.version}`,
      engine: { package: 'gov-clearinghouse', version: expect.any(String), mcp_sdk: MCP_SDK_VERSION },
      bindings: {
        event_store: true,
        read_store: true,
        bus: true,
        smtp: false,
        vault: true,
        model_providers: false,
      },
      upstream: {
        event_store: 'healthy',
        read_store: 'healthy',
        bus: 'healthy',
        log_sequencer: 'healthy',
        clearinghouse: 'healthy',
      },
      adapters: {
        event_store: 'sqlite',
        read_store: 'sqlite',
        bus: 'in-process',
        vault: 'aes-256-gcm (keys/vault-master.key)',
      },
      role: 'all',
    });
  });

  it('given an upstream that does not answer, when GET /health, then 503 within the bound, naming it', async () => {
    const upstream = server.server.platform.upstream;
    const { clearinghouse, log_sequencer } = upstream;
    upstream.clearinghouse = () => new Promise(() => undefined);
    upstream.log_sequencer = () => Promise.reject(new Error('down'));
    try {
      const started = Date.now();
      const response = await platform('/health');
      expect(Date.now() - started).toBeLessThan(4000);
      expect(response.status).toBe(503);
      const health = await valid<Health>(response, 'platform-health');
      expect(health.status).toBe('degraded');
      expect(health.upstream).toMatchObject({
        event_store: 'healthy',
        clearinghouse: 'timeout',
        log_sequencer: 'unhealthy',
      });
      expect(health.detail).toContain('clearinghouse did not answer within 2000 ms');
      expect(health.detail).toContain('log_sequencer is unhealthy');
    } finally {
      upstream.clearinghouse = clearinghouse;
      upstream.log_sequencer = log_sequencer;
    }
  });

  it('given the embedded server, when its sequencer stops writing the shared log, then /health says log_sequencer unhealthy', async () => {
    // The real in-process check, against a sequencer stand-in that writes no log.
    const upstream = server.server.platform.upstream;
    const real = upstream.log_sequencer;
    upstream.log_sequencer = sequencerWritingHere({ writing: () => [] });
    try {
      const health = (await (await platform('/health')).json()) as Health;
      expect(health.upstream.log_sequencer).toBe('unhealthy');
    } finally {
      upstream.log_sequencer = real;
    }
    expect(((await (await platform('/health')).json()) as Health).status).toBe('ok');
  });

  it('given GET /v1/architecture, then the services, the core with its adapters, the log and every process', async () => {
    const response = await platform('/v1/architecture');
    expect(response.status).toBe(200);
    const map = await valid<{
      deployment: string;
      role: string;
      core: Record<string, { adapter: string | null }>;
      log: { url: string };
      processes: { role: string; start: string }[];
      services: Record<string, { url: string }>;
    }>(response, 'platform-architecture');
    expect(map.deployment).toBe('embedded');
    expect(map.role).toBe('all');
    expect(map.core.event_store!.adapter).toBe('sqlite');
    expect(map.core.bus!.adapter).toBe('in-process');
    expect(map.log.url).toBe(`${server.server.url}/gov/v1/log`);
    expect(map.processes.map((process) => process.role)).toEqual([
      'all',
      'command-api',
      'read-api',
      'projectors',
      'dispatcher',
      'platform',
    ]);
    // Every start command named is a script of package.json.
    const scripts = (
      JSON.parse(fs.readFileSync(path.join(REPO_ROOT, 'package.json'), 'utf8')) as {
        scripts: Record<string, string>;
      }
    ).scripts;
    for (const { start } of map.processes)
      expect(scripts[start === 'npm start' ? 'start' : start.replace('npm run ', '')]).toBeDefined();
    expect(map.services.platform!.url).toBe(server.server.platformUrl);
  });

  it('given GET /v1/services, then each named service with its public URL, and every link answers', async () => {
    const response = await platform('/v1/services');
    expect(response.status).toBe(200);
    const { services } = await valid<{ services: Record<string, Record<string, string>> }>(
      response,
      'platform-services',
    );
    expect(Object.keys(services)).toEqual(['platform', 'clearinghouse', 'transparency_log']);
    expect(services.platform!.url).toBe(server.server.platformUrl);
    expect(services.clearinghouse!.url).toBe(server.server.url);
    expect(services.transparency_log!.url).toBe(`${server.server.url}/gov/v1/log`);
    for (const [name, entry] of Object.entries(services))
      for (const [link, url] of Object.entries(entry))
        if (link.endsWith('_url'))
          expect({ name, link, status: (await fetch(url)).status }).toEqual({ name, link, status: 200 });
  });

  it("given requests to the platform, when GET /v1/metrics, then the platform's own series and none of the clearinghouse's", async () => {
    await platform('/v1/architecture');
    const response = await platform('/v1/metrics');
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toContain('text/plain');
    const text = await response.text();
    expect(text).toMatch(
      /^gov_platform_http_request_duration_seconds_count\{method="GET",route="\/v1\/architecture",status="200"\} [1-9]/m,
    );
    for (const verdict of ['ADMIT', 'BLOCK', 'ESCALATE'])
      expect(text).toContain(`gov_platform_governed_actions_total{verdict="${verdict}"} 0`);
    expect(text).toMatch(/^gov_process_resident_memory_bytes /m);
    expect(text).not.toMatch(/^gov_(http_request|admissions|sequencer|projector)/m);
    // The clearinghouse's request series does not count the platform's requests.
    const clearinghouse = await (await fetch(`${server.server.url}/v1/metrics`)).text();
    expect(clearinghouse).not.toMatch(
      /^gov_http_request_duration_seconds_count\{[^}]*route="\/v1\/architecture"/m,
    );
  });

  interface Capabilities {
    tiers: string[];
    features: {
      feature: string;
      status: string;
      available: boolean;
      required_tier: string;
      tiers: string[];
      limits: Record<string, Record<string, number | null>>;
    }[];
  }

  it('given GET /v1/capabilities, then every feature with its tiers exactly as the feature gate enforces them', async () => {
    const response = await platform('/v1/capabilities');
    expect(response.status).toBe(200);
    const catalog = await valid<Capabilities>(response, 'platform-capabilities');
    expect(catalog.tiers).toEqual(['L1', 'L2', 'L2+', 'L4']);
    expect(catalog.features.map((entry) => entry.feature)).toEqual(FEATURES.map((feature) => feature.id));
    for (const entry of catalog.features)
      for (const tier of TIERS) {
        const gate = featureGate(tier, entry.feature as (typeof FEATURES)[number]['id']);
        expect({ feature: entry.feature, tier, listed: entry.tiers.includes(tier) }).toEqual({
          feature: entry.feature,
          tier,
          listed: gate === null,
        });
        if (gate) expect(gate.required_tier).toBe(entry.required_tier);
        else
          expect(Object.keys(entry.limits[tier]!)).toEqual(
            FEATURES.find((feature) => feature.id === entry.feature)!.limits,
          );
      }
    // The defaults of the platform's feature gating.
    const required = Object.fromEntries(
      catalog.features.map((entry) => [entry.feature, entry.required_tier]),
    );
    expect(required).toMatchObject({
      chat: 'L1',
      memory: 'L1',
      profile: 'L1',
      heartbeat: 'L1',
      schedules: 'L2',
      dream_tasks: 'L2',
      sub_agents: 'L2+',
      email_channel: 'L2+',
      messaging_channel: 'L2+',
      dedicated_log: 'L4',
    });
  });

  it("given GET /v1/tiers, then L1 to L4 with prices, the platform's and the clearinghouse's limits, and what each adds", async () => {
    const response = await platform('/v1/tiers');
    expect(response.status).toBe(200);
    const { tiers } = await valid<{
      tiers: {
        tier: string;
        name: string;
        pricing: { usd_per_1000_credits: number | null };
        clearinghouse_limits: { requests_per_minute: number; leaves_per_day: number | null };
        features: string[];
        adds: string[];
      }[];
    }>(response, 'platform-tiers');
    expect(tiers.map((tier) => [tier.tier, tier.name])).toEqual([
      ['L1', 'Trial'],
      ['L2', 'Pay-as-you-govern'],
      ['L2+', 'Certified'],
      ['L4', 'Networked'],
    ]);
    for (const tier of tiers) {
      const limits = TIER_LIMITS[tier.tier as keyof typeof TIER_LIMITS];
      expect(tier.clearinghouse_limits).toMatchObject({
        requests_per_minute: limits.requestsPerMinute,
        leaves_per_day: limits.leavesPerDay,
      });
      expect(tier.pricing.usd_per_1000_credits).toBe(
        costModel().usd_per_1000_credits[tier.tier as keyof typeof TIER_LIMITS],
      );
    }
    // Each tier has what the one below has, and every feature is added by exactly one tier.
    for (let i = 1; i < tiers.length; i++)
      expect(tiers[i]!.features).toEqual(expect.arrayContaining(tiers[i - 1]!.features));
    expect(tiers.flatMap((tier) => tier.adds).sort()).toEqual(FEATURES.map((feature) => feature.id).sort());
    expect(tiers[3]!.features).toHaveLength(FEATURES.length);
  });

  it('given GET /v1/channels, then chat, REST, email and messaging app, each with its status and required tier', async () => {
    const response = await platform('/v1/channels');
    expect(response.status).toBe(200);
    const { channels } = await valid<{
      channels: {
        channel: string;
        feature: string;
        status: string;
        available: boolean;
        required_tier: string;
      }[];
    }>(response, 'platform-channels');
    const catalog = (await (await platform('/v1/capabilities')).json()) as Capabilities;
    expect(channels.map((channel) => [channel.channel, channel.required_tier])).toEqual([
      ['chat', 'L1'],
      ['rest', 'L1'],
      ['email', 'L2+'],
      ['messaging_app', 'L2+'],
    ]);
    for (const channel of channels) {
      const feature = catalog.features.find((entry) => entry.feature === channel.feature)!;
      expect(channel).toMatchObject({ status: feature.status, available: feature.available });
    }
  });

  it('given GET /v1/cost-model, then the model the estimates apply', async () => {
    const response = await platform('/v1/cost-model');
    expect(response.status).toBe(200);
    expect(await valid(response, 'platform-cost-model')).toEqual(JSON.parse(JSON.stringify(costModel())));
  });

  const estimate = (body: unknown) =>
    platform('/v1/cost-estimate', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });

  it('given a proposed action, when POST /v1/cost-estimate, then its credits, price and the arithmetic', async () => {
    const response = await estimate({
      action_type: 'task_step',
      tool_class: 'external',
      quantity: 12,
      tier: 'L2',
    });
    expect(response.status).toBe(200);
    expect(await valid(response, 'platform-cost-estimate')).toEqual({
      action_type: 'task_step',
      tool_class: 'external',
      risk_tier: 'high',
      credits_per_action: 5,
      quantity: 12,
      credits: 60,
      tier: 'L2',
      usd: 0.12,
      quota_actions: 12,
      formula:
        'high risk: 5 credits × (1 + 0 extra 16 KiB blocks) = 5 per action; × 12 = 60 credits; 60 × $2 / 1000 = $0.12',
    });
    const defaults = await estimate({ action_type: 'chat_message' });
    expect(await valid(defaults, 'platform-cost-estimate')).toMatchObject({
      tool_class: null,
      tier: 'L1',
      quantity: 1,
      credits: 1,
      usd: 0,
    });
    const contract = await estimate({ action_type: 'memory_write', content_bytes: 40_000, tier: 'L4' });
    expect(await contract.json()).toMatchObject({ credits_per_action: 6, usd: null });
  });

  it.each([
    [{}, 'action_type'],
    [{ action_type: 'launch_rocket' }, 'action_type'],
    [{ action_type: 'chat_message', quantity: 0 }, 'quantity'],
    [{ action_type: 'chat_message', quantity: 1.5 }, 'quantity'],
    [{ action_type: 'chat_message', content_bytes: -1 }, 'content_bytes'],
    [{ action_type: 'chat_message', tier: 'L3' }, 'tier'],
    [{ action_type: 'chat_message', price: 0 }, 'price'],
    [[], ''],
  ])(
    'given the body %j, when POST /v1/cost-estimate, then 400 invalid_request naming %s',
    async (body, member) => {
      const response = await estimate(body);
      expect(response.status).toBe(400);
      const answer = (await response.json()) as { error: string; detail: string };
      expect(answer).toEqual({ error: 'invalid_request', detail: expect.stringContaining(member) });
    },
  );

  it("given the cost-estimate command schema, then its enumerations are the domain's", () => {
    const { properties } = costEstimateSchema;
    expect(properties.action_type.enum).toEqual([...ACTION_TYPES]);
    expect(properties.tool_class.enum).toEqual([...TOOL_CLASSES]);
    expect(properties.tier.enum).toEqual([...TIERS]);
  });

  it('given the OpenAPI document, then every public endpoint with a schema for each JSON answer', async () => {
    const document = (await (await platform('/openapi.json')).json()) as {
      paths: Record<string, Record<string, { responses: Record<string, { content?: object }> }>>;
    };
    const routes = [
      ['get', '/health'],
      ['get', '/v1/version'],
      ['get', '/v1/capabilities'],
      ['get', '/v1/architecture'],
      ['get', '/v1/services'],
      ['get', '/v1/tiers'],
      ['get', '/v1/cost-model'],
      ['post', '/v1/cost-estimate'],
      ['get', '/v1/channels'],
      ['get', '/v1/metrics'],
    ] as const;
    for (const [method, route] of routes) {
      const operation = document.paths[route]?.[method];
      expect({ route, documented: operation !== undefined }).toEqual({ route, documented: true });
      expect(operation!.responses['200']!.content).toBeDefined();
    }
    expect(document.paths['/health']!.get!.responses['503']).toBeDefined();
    const estimate = document.paths['/v1/cost-estimate']!.post! as unknown as {
      requestBody: { content: { 'application/json': { schema: { $ref: string } } } };
      responses: Record<string, unknown>;
    };
    expect(estimate.requestBody.content['application/json'].schema.$ref).toBe(
      '#/components/schemas/CostEstimateBody',
    );
    expect(JSON.stringify(estimate.responses['400'])).toContain('PlatformError');
  });
});
