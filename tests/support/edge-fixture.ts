/**
 * A started embedded server with an L2 tenant that owns one admitted authorization and one webhook, so
 * a suite can call every documented operation with real ids and only the part under test wrong.
 */
import {
  type AdmittedEvidence,
  type Registration,
  setTier,
  startTestServer,
  type TestServer,
  validEvidence,
} from './governance-client';
import { type OpenApiDocument, servedOpenApi } from './openapi-operations';

export interface EdgeFixture {
  t: TestServer;
  doc: OpenApiDocument;
  tenant: Registration;
  authorization: AdmittedEvidence;
  webhookId: string;
}

export async function startEdgeFixture(prefix: string): Promise<EdgeFixture> {
  const t = await startTestServer(prefix, { env: { GOV_WEBHOOK_ALLOW: '127.0.0.1' } });
  const doc = await servedOpenApi(t.client);
  const tenant = await t.client.register();
  await setTier(t.server, tenant.tenant_id, 'L2');
  const authorization = await t.client.admit(tenant.api_key, validEvidence(`${prefix}-subject`));
  const hook = await t.client.post<{ webhook_id: string }>(
    '/webhooks',
    { url: 'http://127.0.0.1:9/hook', events: ['gate_fail'] },
    tenant.api_key,
  );
  return { t, doc, tenant, authorization, webhookId: hook.body.webhook_id };
}

/** A value for each path parameter of the document: the tenant's own resources (any delivery id). */
export function realPathValues(
  fixture: Pick<EdgeFixture, 'authorization' | 'webhookId'>,
): Record<string, string> {
  return {
    artifact_hash: fixture.authorization.artifact_hash,
    auth_leaf_hash: fixture.authorization.leaf_hash,
    id: fixture.webhookId,
    delivery_id: 'dl_0000000000000000',
    path: '0/000',
    // The fixture's leaves are in the shared log (GET /gov/v1/logs/shared/… is /gov/v1/log/…).
    log: 'shared',
  };
}
