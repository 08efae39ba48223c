/**
 * Feature gating from the capability table (domain/platform/capabilities.ts), the same table
 * `GET /v1/capabilities` is generated from: a route that belongs to a feature takes
 * `use: requireFeature(feature)`, and a caller whose tier (its tenant's, as `gov tenant tier` sets it)
 * is below the feature's is answered 403 `feature_requires_upgrade` with `detail` and `required_tier`.
 * Features every tier has cost no lookup: their gate is no middleware at all.
 */
import type { NextFunction, Request, RequestHandler, Response } from 'express';
import { type FeatureId, featureGate, requiredTier, TIERS } from '../../../domain/platform/capabilities';
import { sendPlatformError } from '../../../runtime/http/platform-errors';
import { agentOf, callerOf } from '../accounts/access';
import { ownerTenant } from '../agents/agent-http';
import type { PlatformServices } from '../services';

/** The tenant whose tier decides: the agent's owner's on an agent route, else the caller's own. */
function tenantOf(res: Response): string {
  return (res.locals.platformAgent ? agentOf(res).tenantId : undefined) ?? callerOf(res).tenantId;
}

/** Middleware (a route's `use`) refusing callers whose tier lacks `feature`. Runs after the access. */
export function requireFeature(feature: FeatureId): (services: PlatformServices) => RequestHandler[] {
  if (requiredTier(feature) === TIERS[0]) return () => [];
  return (services) => [
    async (_req: Request, res: Response, next: NextFunction) => {
      const { tier } = await ownerTenant(services, tenantOf(res));
      const refusal = featureGate(tier, feature);
      if (!refusal) {
        next();
        return;
      }
      sendPlatformError(res, 403, refusal.error, refusal.detail, { required_tier: refusal.required_tier });
    },
  ];
}
