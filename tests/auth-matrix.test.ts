/**
 * Security: every operation the served OpenAPI document marks as needing the API key is called with
 * no key, malformed keys, an unknown key, a key with a wrong secret and a key rotated out more than
 * 24 hours ago (401, all alike), and with another tenant's valid key on tenant A's resources (404 or
 * the spec's refusal, exactly like a missing resource, with nothing of A's in the answer). The routes
 * come from the document, so a route added to it without an example here makes this suite fail.
 */
import { randomBytes } from 'node:crypto';
import { DEFAULT_POLICY } from '../domain/governance/policy';
import {
  type AdmittedEvidence,
  digest,
  HOUR_MS,
  MINUTE_MS,
  type Registration,
  setTier,
  startTestServer,
  type TestServer,
  validEvidence,
} from './support/governance-client';
import {
  type DocumentedOperation,
  documentedOperations,
  fillPath,
  type OpenApiDocument,
  parametersOf,
  requestBodySchemaName,
  requiresApiKey,
  servedOpenApi,
} from './support/openapi-operations';
import { WebhookReceiver } from './support/webhook-receiver';

interface Answer {
  status: number;
  error?: string;
  text: string;
  headers: Headers;
  body: Record<string, unknown>;
}

/** Tenant A's resources, which the other tenant probes. */
interface Resources {
  artifact_hash: string;
  auth_leaf_hash: string;
  webhook_id: string;
  delivery_id: string;
}

const A_SUBJECT = 'alice-private-subject';
const A_ORGANIZATION = 'Alice Private Research';
const A_SECRET = 'alice-webhook-secret-0123456789';

describe('authentication and tenant isolation on every authenticated operation of the OpenAPI document', () => {
  let t: TestServer;
  let receiver: WebhookReceiver;
  let doc: OpenApiDocument;
  let authenticated: DocumentedOperation[];
  let a: Registration;
  let b: Registration;
  let rotatedOutKey: string;
  let owned: Resources;
  let aMarkers: string[];
  const client = () => t.client;
  const head = () => t.server.services.eventStore.headPosition();

  beforeAll(async () => {
    t = await startTestServer('gov-auth-matrix', { env: { GOV_WEBHOOK_ALLOW: '127.0.0.1' } });
    receiver = await WebhookReceiver.start('/alice-private-hook');
    doc = await servedOpenApi(client());
    authenticated = documentedOperations(doc).filter(({ operation }) => requiresApiKey(doc, operation));

    // A key rotated out: it worked, then its 24-hour grace ran out.
    const r = await client().register({ email: 'rotated-matrix@example.com' });
    expect((await client().post('/api-key/rotate', undefined, r.api_key)).status).toBe(200);
    expect((await client().get('/account', r.api_key)).status).toBe(200);
    rotatedOutKey = r.api_key;
    t.clock.advance(24 * HOUR_MS + MINUTE_MS);

    a = await client().register({ email: 'alice-matrix@example.com', organization: A_ORGANIZATION });
    b = await client().register({ email: 'bob-matrix@example.com' });
    await setTier(t.server, a.tenant_id, 'L2');
    await setTier(t.server, b.tenant_id, 'L2');
    const hook = await client().post<{ webhook_id: string }>(
      '/webhooks',
      { url: receiver.url, events: ['leaf_admitted'], secret: A_SECRET },
      a.api_key,
    );
    expect(hook.status).toBe(201);
    const authorization: AdmittedEvidence = await client().admit(a.api_key, validEvidence(A_SUBJECT));
    const executed = await client().post<{ exec_leaf_hash: string; variance_leaf_hash: string }>(
      '/governance/execution',
      { parent_auth_leaf_hash: authorization.leaf_hash, outcome: 'EXECUTED' },
      a.api_key,
    );
    expect(executed.status).toBe(201);
    await receiver.waitFor((all) => all.length >= 1);
    const deliveries = await client().get<{ deliveries: { delivery_id: string }[] }>(
      `/webhooks/${hook.body.webhook_id}/deliveries`,
      a.api_key,
    );
    owned = {
      artifact_hash: authorization.artifact_hash,
      auth_leaf_hash: authorization.leaf_hash,
      webhook_id: hook.body.webhook_id,
      delivery_id: deliveries.body.deliveries[0]!.delivery_id,
    };
    aMarkers = [
      a.tenant_id,
      a.node_id,
      a.api_key,
      'alice-matrix@example.com',
      A_ORGANIZATION,
      A_SUBJECT,
      A_SECRET,
      receiver.url,
      executed.body.exec_leaf_hash,
      executed.body.variance_leaf_hash,
      ...Object.values(owned),
    ];
  });
  afterAll(async () => {
    await t?.dispose();
    await receiver?.close();
  });

  /** Example path values: A's resources, or well-formed ids nobody has. */
  const pathValues = (resources: Resources): Record<string, string> => ({
    artifact_hash: resources.artifact_hash,
    auth_leaf_hash: resources.auth_leaf_hash,
    id: resources.webhook_id,
    delivery_id: resources.delivery_id,
  });
  const missing = (): Resources => ({
    artifact_hash: digest(`missing-${randomBytes(4).toString('hex')}`),
    auth_leaf_hash: digest(`missing-${randomBytes(4).toString('hex')}`),
    webhook_id: `wh_${randomBytes(12).toString('hex')}`,
    delivery_id: `dl_${randomBytes(8).toString('hex')}`,
  });

  /** A valid body per request schema; `refersTo` names the resource of A it points at, if any. */
  const bodies: Record<string, (resources: Resources) => { body: unknown; refersTo: boolean }> = {
    SubmitEvidenceBody: () => ({ body: validEvidence('bob-subject'), refersTo: false }),
    SubmitExecutionBody: (resources) => ({
      body: { parent_auth_leaf_hash: resources.auth_leaf_hash, outcome: 'EXECUTED' },
      refersTo: true,
    }),
    ChangePolicyBody: () => ({ body: DEFAULT_POLICY, refersTo: false }),
    RegisterWebhookBody: () => ({
      body: { url: 'http://127.0.0.1:9/bob-hook', events: ['gate_fail'] },
      refersTo: false,
    }),
  };

  /** Calls `documented` as the route table says, with `authorization` (or none). */
  async function call(
    documented: DocumentedOperation,
    authorization: string | undefined,
    resources: Resources = owned,
  ): Promise<Answer & { sent: string; refersTo: boolean }> {
    for (const parameter of parametersOf(doc, documented.operation))
      if (parameter.in === 'query' && parameter.required)
        throw new Error(`${documented.label}: no example for required query parameter '${parameter.name}'`);
    const route = fillPath(documented, pathValues(resources));
    const schema = requestBodySchemaName(documented.operation);
    const example = schema === null ? null : bodies[schema];
    if (schema !== null && !example)
      throw new Error(`${documented.label}: no example body for ${schema}; add one`);
    const built = example?.(resources) ?? { body: undefined, refersTo: false };
    const res = await client().request(documented.method.toUpperCase(), route, {
      ...(built.body === undefined ? {} : { json: built.body }),
      headers: authorization === undefined ? {} : { authorization },
    });
    return {
      status: res.status,
      error: res.body?.error as string | undefined,
      text: res.text,
      headers: res.headers,
      body: res.body,
      sent: `${route} ${JSON.stringify(built.body ?? null)}`,
      refersTo: built.refersTo,
    };
  }

  it('given the served document, then it lists the authenticated operations (not an empty document)', () => {
    expect(authenticated.length).toBeGreaterThanOrEqual(15);
    const ids = authenticated.map(({ operation }) => operation.operationId);
    for (const known of [
      'getAccount',
      'rotateApiKey',
      'submitEvidence',
      'submitExecution',
      'registerWebhook',
    ])
      expect(ids).toContain(known);
    // The public ones are not in the list.
    expect(ids).not.toContain('autoRegister');
    expect(ids).not.toContain('getProofBundle');
  });

  describe.each([
    ['no Authorization header', () => undefined],
    ['an empty bearer token', () => 'Bearer '],
    ['a token that is not an API key', () => 'Bearer not-an-api-key'],
    ['another scheme (Basic)', () => `Basic ${Buffer.from('user:pass').toString('base64')}`],
    ['a truncated key', () => `Bearer ${a.api_key.slice(0, -1)}`],
    ['a known key id with a wrong secret', () => `Bearer ${a.api_key.slice(0, -4)}${'A'.repeat(4)}`],
    [
      'an unknown well-formed key',
      () => `Bearer gov_live_${randomBytes(8).toString('hex')}_${randomBytes(32).toString('base64url')}`,
    ],
    ['a key rotated out more than 24 hours ago', () => `Bearer ${rotatedOutKey}`],
  ])('given %s', (_name, credential) => {
    it('when each authenticated operation is called, then 401 UNAUTHORIZED, the same answer everywhere, and nothing appended', async () => {
      const before = await head();
      const answers: string[] = [];
      for (const documented of authenticated) {
        const res = await call(documented, credential());
        expect({ op: documented.label, status: res.status, error: res.error }).toEqual({
          op: documented.label,
          status: 401,
          error: 'UNAUTHORIZED',
        });
        expect(res.headers.get('www-authenticate')).toBe('Bearer realm="gov"');
        expect(Object.keys(res.body).sort()).toEqual(['correlation_id', 'error', 'message']);
        answers.push(res.body.message as string);
      }
      // One message for every route and every kind of bad key: nothing tells them apart.
      expect(new Set(answers).size).toBe(1);
      expect(answers[0]).toMatch(/Authorization: Bearer/);
      expect(await head()).toBe(before);
    });
  });

  it("given tenant B's valid key, when each operation is called on A's resources, then B gets what a missing resource gets and nothing of A's", async () => {
    t.clock.advance(MINUTE_MS);
    const outcomes: Record<string, unknown>[] = [];
    for (const documented of authenticated) {
      const onA = await call(documented, `Bearer ${b.api_key}`);
      const leaked = aMarkers.filter((marker) => !onA.sent.includes(marker) && onA.text.includes(marker));
      expect({ op: documented.label, leaked }).toEqual({ op: documented.label, leaked: [] });
      const pointsAtA = documented.template.includes('{') || onA.refersTo;
      if (pointsAtA) {
        const onMissing = await call(documented, `Bearer ${b.api_key}`, missing());
        expect({ op: documented.label, status: onA.status, error: onA.error }).toEqual({
          op: documented.label,
          status: onMissing.status,
          error: onMissing.error,
        });
        expect([404, 422]).toContain(onA.status);
      } else {
        // Routes without an id act on B's own tenant.
        expect({ op: documented.label, status: onA.status < 300 }).toEqual({
          op: documented.label,
          status: true,
        });
      }
      outcomes.push({ op: documented.operation.operationId, status: onA.status, error: onA.error });
      // B's rotated key is in its grace period, which manages nothing: B goes on with its new key.
      if (documented.operation.operationId === 'rotateApiKey') b.api_key = onA.body.api_key as string;
    }
    expect(outcomes).toEqual(
      expect.arrayContaining([
        { op: 'getComplianceReport', status: 404, error: 'NOT_FOUND' },
        { op: 'getVariance', status: 404, error: 'NOT_FOUND' },
        { op: 'getTripleLeaf', status: 404, error: 'NOT_FOUND' },
        { op: 'getWebhook', status: 404, error: 'NOT_FOUND' },
        { op: 'deleteWebhook', status: 404, error: 'NOT_FOUND' },
        { op: 'submitExecution', status: 422, error: 'PARENT_AUTH_NOT_FOUND' },
      ]),
    );
  });

  it("then A's resources are untouched: its webhook is still registered and its delivery was not sent again", async () => {
    const webhook = await client().get(`/webhooks/${owned.webhook_id}`, a.api_key);
    expect(webhook.status).toBe(200);
    const log = await client().get<{ deliveries: unknown[] }>(
      `/webhooks/${owned.webhook_id}/deliveries`,
      a.api_key,
    );
    expect(log.body.deliveries).toHaveLength(1);
    expect(receiver.received).toHaveLength(1);
  });
});
