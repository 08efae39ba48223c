import { type Request, type Response, Router } from 'express';
import { takesNoQuery } from '../../../runtime/http/query';
import { type CoreServices, SERVICE_NAME, SERVICE_VERSION } from '../../../runtime/wiring/services';
import { checkHealth } from './health';

/** The read side: health, metrics, and views served from the read models. */
export function readRoutes(
  services: Pick<CoreServices, 'metrics' | 'eventStore' | 'readStore' | 'bindings'>,
): Router {
  const router = Router();

  router.get('/health', takesNoQuery, async (_req: Request, res: Response) => {
    const health = await checkHealth(services);
    res.status(health.status === 'ok' ? 200 : 503).json(health);
  });

  router.get('/v1/metrics', takesNoQuery, async (_req: Request, res: Response) => {
    res.setHeader('Content-Type', services.metrics.registry.contentType);
    res.send(await services.metrics.registry.metrics());
  });

  router.get('/v1/version', takesNoQuery, (_req: Request, res: Response) => {
    res.json({ service: SERVICE_NAME, version: SERVICE_VERSION, runtime: `node ${process.version}` });
  });

  return router;
}
