import { randomUUID } from 'node:crypto';
import { type Request, type Response, Router } from 'express';
import type { RegisterTenantBody } from '../../../event-schemas';
import { takesNoQuery } from '../../../runtime/http/query';
import { limitRegistrationsPerClient } from '../../../runtime/http/registration-limit';
import { validateBody } from '../../../runtime/http/validate-body';
import type { GovernanceServices } from '../../../runtime/wiring/governance-services';
import { decideRegisterTenant } from './register-tenant';

/**
 * The write side: each route validates its body, decides events, appends them, and answers.
 * (Express 5 sends a rejected handler promise to the error handler.)
 */
export function commandRoutes(services: GovernanceServices): Router {
  const router = Router();

  const registration = [takesNoQuery, validateBody('register-tenant'), limitRegistrationsPerClient(services)];

  router.post('/auto-register', ...registration, async (req: Request, res: Response) => {
    const decision = decideRegisterTenant(req.body as RegisterTenantBody, services.clock());
    const { position } = await services.eventStore.append(
      decision.stream,
      [
        {
          ...decision.event,
          tenant_id: decision.event.data.tenant_id,
          correlation_id: res.locals.correlationId as string,
          causation_id: null,
          id: randomUUID(),
        },
      ],
      { expectedRevision: 'no-stream' },
    );
    // Read-your-write: the key works as soon as the caller has it.
    await services.awaitProjections(position, [decision.event.type]);
    const { publicUrl } = services.config;
    const { data } = decision.event;
    res.status(201).json({
      api_key: decision.apiKey,
      tenant_id: data.tenant_id,
      node_id: data.node_id,
      log_url: `${publicUrl}/gov/v1/log`,
      dashboard_url: `${publicUrl}/dashboard`,
      tier: data.tier,
      mode: data.mode,
    });
  });

  return router;
}
