import type { Request, Response } from 'express';
import type { PlatformServices } from '../../../command-api/platform/services';
import { SERVICE_VERSION } from '../../../runtime/core/services';
import { json } from '../../../runtime/http/openapi-parts';
import { PUBLIC, type Route } from '../../../runtime/http/route-table';

/** The platform's name in /health, /v1/version and its OpenAPI document. */
export const PLATFORM_SERVICE_NAME = 'gov-agent-platform';

/** The platform's public service routes: version (more join them in this table). */
export const platformServiceRoutes: readonly Route<PlatformServices>[] = [
  {
    method: 'get',
    path: '/v1/version',
    access: PUBLIC,
    tags: ['platform'],
    operationId: 'getPlatformVersion',
    summary: 'Build and SDK versions',
    responses: {
      '200': {
        description: 'The service, its version and the runtime.',
        content: json({
          type: 'object',
          required: ['service', 'version', 'runtime'],
          properties: {
            service: { type: 'string', const: PLATFORM_SERVICE_NAME },
            version: { type: 'string' },
            runtime: { type: 'string' },
          },
        }),
      },
    },
    handler: () => (_req: Request, res: Response) => {
      res.json({
        service: PLATFORM_SERVICE_NAME,
        version: SERVICE_VERSION,
        runtime: `node ${process.version}`,
      });
    },
  },
];
