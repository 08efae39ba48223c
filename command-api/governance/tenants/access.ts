/**
 * Who may call a governance route (runtime/http/route-table.ts `Access`): the middleware that admits the caller
 * and what the document says every such route may answer.
 */

import { HOUR_MS } from '../../../domain/governance/tier-limits';
import { errorResponse, readModelsBehind, responseRef } from '../../../runtime/http/openapi-parts';
import type { Access } from '../../../runtime/http/route-table';
import type { GovernanceServices } from '../services';
import { ROTATION_GRACE_MS } from './account-commands';
import { authenticate, requireClosedLoopTier, requireCurrentKey } from './auth';
import { limitRequestRate } from './request-rate';

/** How long a key rotated out keeps working, in hours. */
export const GRACE_HOURS = ROTATION_GRACE_MS / HOUR_MS;

/** A valid API key of a tenant (one in its grace period after a rotation too), within its tier's rate. */
export const TENANT_KEY: Access<GovernanceServices> = {
  admit: (services) => [authenticate(services), limitRequestRate(services)],
  security: [{ bearer: [] }],
  responses: {
    '401': responseRef('Unauthorized'),
    '429': responseRef('RateLimited'),
    // The key's tenant is read at the read barrier too (its leaf counts are a read model).
    '503': readModelsBehind,
  },
};

/** Account management (keys, webhooks, policy): the tenant's current key only. */
export const CURRENT_KEY: Access<GovernanceServices> = {
  ...TENANT_KEY,
  require: requireCurrentKey,
  responses: {
    ...TENANT_KEY.responses,
    '403': errorResponse(
      `FORBIDDEN (beyond the spec): the key was replaced by a key rotation. In its ${GRACE_HOURS} hours of grace it still reads and submits evidence, but only the current key manages the account (key rotation, webhooks, the tenant policy). Nothing was changed.`,
      ['FORBIDDEN'],
    ),
  },
};

/** The closed-loop records: a tenant key of tier L2 or above. */
export const CLOSED_LOOP_TIER: Access<GovernanceServices> = {
  ...TENANT_KEY,
  require: requireClosedLoopTier,
  responses: {
    ...TENANT_KEY.responses,
    '403': errorResponse('TIER_INSUFFICIENT: closed-loop records need tier L2 or above.', [
      'TIER_INSUFFICIENT',
    ]),
  },
};
