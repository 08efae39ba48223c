import { type Request, type Response, Router } from 'express';
import { authenticate, callerOf } from '../runtime/http/auth';
import { SERVICE_NAME, SERVICE_VERSION, type Services } from '../runtime/services';
import { checkHealth } from './health';

/** The read side: health, metrics, and views served from the read models. */
export function readRoutes(services: Services): Router {
  const router = Router();

  router.get('/health', async (_req: Request, res: Response) => {
    const health = await checkHealth(services);
    res.status(health.status === 'ok' ? 200 : 503).json(health);
  });

  router.get('/v1/metrics', async (_req: Request, res: Response) => {
    res.setHeader('Content-Type', services.metrics.registry.contentType);
    res.send(await services.metrics.registry.metrics());
  });

  router.get('/v1/version', (_req: Request, res: Response) => {
    res.json({ service: SERVICE_NAME, version: SERVICE_VERSION, runtime: `node ${process.version}` });
  });

  router.get('/account', authenticate(services), (_req: Request, res: Response) => {
    const { tenant } = callerOf(res);
    res.json({
      tenant_id: tenant.tenant_id,
      node_id: tenant.node_id,
      email: tenant.email,
      organization: tenant.organization,
      mode: tenant.mode,
      tier: tenant.tier,
      leaf_count: tenant.leaf_count,
      subscription_id: tenant.subscription_id,
      registered_at: tenant.registered_at,
    });
  });

  return router;
}
