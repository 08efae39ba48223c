/** Enrollment and the API key: registering a tenant (public) and rotating its key. */
import type { Request, Response } from 'express';
import { tenantLogOf } from '../../../domain/governance/tenant-log';
import { logUrlOf } from '../../../domain/log';
import type { RegisterTenantBody } from '../../../event-schemas';
import { sendError } from '../../../runtime/http/errors';
import { errorSchema, headerRef, invalid, json, schema } from '../../../runtime/http/openapi-parts';
import { limitRegistrationsPerClient } from '../../../runtime/http/registration-limit';
import { PUBLIC, type Route } from '../../../runtime/http/route-table';
import type { GovernanceServices } from '../services';
import { CURRENT_KEY, GRACE_HOURS } from './access';
import { decideRotateKey } from './account-commands';
import { callerOf } from './auth';
import { decideRegisterTenant, decideRegistration } from './register-tenant';
import { tenantStream } from './tenant-state';

export const tenantCommandRoutes: readonly Route<GovernanceServices>[] = [
  {
    method: 'post',
    path: '/auto-register',
    access: PUBLIC,
    body: { command: 'register-tenant', description: 'Who the tenant is; mode test issues a gov_test_ key.' },
    // After body validation: a refused invalid body does not use up the allowance.
    use: (services) => [limitRegistrationsPerClient(services)],
    tags: ['account'],
    operationId: 'autoRegister',
    summary: 'Provision a Trial (L1) tenant and its API key',
    responses: {
      '201': {
        description: 'The tenant and its key (shown once).',
        content: json(schema('urn:gov:response:registration')),
      },
      '400': invalid('The body is not JSON, not sent as application/json, or does not match the schema.'),
      '429': (settings) => ({
        description: `RATE_LIMITED: more registrations from this client address in the current clock hour than GOV_REGISTRATIONS_PER_IP_HOUR allows (${settings.registrationsPerIpHour} on this server). Retry-After says when to retry.`,
        headers: { 'Retry-After': headerRef('RetryAfter') },
        content: json(errorSchema(['RATE_LIMITED'])),
      }),
    },
    handler: registerTenant,
  },
  {
    method: 'post',
    path: '/api-key/rotate',
    access: CURRENT_KEY,
    body: 'none',
    tags: ['account'],
    operationId: 'rotateApiKey',
    summary: `Issue a new API key; the current one stops working ${GRACE_HOURS} hours later`,
    description: `Takes no body. Only the current key rotates: the previous key, in its ${GRACE_HOURS} hours of grace, answers 403.`,
    responses: {
      '200': {
        description: 'The new key (shown once) and when the previous one expires.',
        content: json(schema('urn:gov:response:key-rotation')),
      },
      '400': invalid('A body was sent that is not empty (none, or {}).'),
    },
    handler: rotateKey,
  },
];

function registerTenant(services: GovernanceServices) {
  return async (req: Request, res: Response) => {
    const decision = decideRegisterTenant(req.body as RegisterTenantBody, services.clock());
    const correlationId = res.locals.correlationId as string;
    const { position } = await services.tenants.execute(
      decision.stream,
      (state) => decideRegistration(state, decision, correlationId),
      { create: true },
    );
    // Read-your-write: the key works as soon as the caller has it (a registration always appends).
    await services.awaitProjections(position as number, [decision.event.type]);
    const { publicUrl } = services.config;
    const { data } = decision.event;
    res.status(201).json({
      api_key: decision.apiKey,
      tenant_id: data.tenant_id,
      node_id: data.node_id,
      // Its log's: the test log for a test-mode tenant.
      log_url: logUrlOf(publicUrl, tenantLogOf(data)),
      dashboard_url: `${publicUrl}/dashboard`,
      tier: data.tier,
      mode: data.mode,
    });
  };
}

function rotateKey(services: GovernanceServices) {
  return async (_req: Request, res: Response) => {
    const { tenant, keyId } = callerOf(res);
    const context = { now: services.clock(), correlationId: res.locals.correlationId as string, keyId };
    const rotated = await services.tenants.execute(tenantStream(tenant.tenant_id), (state) =>
      decideRotateKey(state, context),
    );
    if (rotated.kind === 'refused') return sendError(res, rotated.status, rotated.error, rotated.message);
    if (rotated.position !== null) await services.awaitProjections(rotated.position, ['ApiKeyRotated']);
    res.status(200).json({
      api_key: rotated.api_key,
      key_id: rotated.key_id,
      previous_key_id: rotated.previous_key_id,
      previous_key_expires_at: rotated.previous_key_expires_at,
    });
  };
}
