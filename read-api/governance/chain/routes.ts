import type { Request, Response } from 'express';
import type { GovernanceServices } from '../../../command-api/governance/services';
import { TENANT_KEY } from '../../../command-api/governance/tenants/access';
import { callerOf } from '../../../command-api/governance/tenants/auth';
import { logUrlOf, SHARED_LOG_NAME } from '../../../domain/log';
import {
  BUNDLES,
  type BundleView,
  governanceProjection,
} from '../../../projectors/governance/governance-projection';
import { sendInvalid } from '../../../runtime/http/errors';
import { invalid, json, schema } from '../../../runtime/http/openapi-parts';
import type { Route } from '../../../runtime/http/route-table';
import { parentBundleHashOf } from '../reports/admission-records';
import {
  CHAIN_DEFAULT_LIMIT,
  CHAIN_MAX_LIMIT,
  CHAIN_MAX_PAGE,
  type ChainQuery,
  ISO_UTC,
  parseChainQuery,
} from './chain-query';

const instant = { type: 'string', format: 'date-time', pattern: ISO_UTC.source };

export const chainReadRoutes: readonly Route<GovernanceServices>[] = [
  {
    method: 'get',
    path: '/governance/chain',
    access: TENANT_KEY,
    query: [
      {
        name: 'page',
        description: 'Page number, from 1.',
        schema: { type: 'integer', minimum: 1, maximum: CHAIN_MAX_PAGE, default: 1 },
      },
      {
        name: 'limit',
        description: 'Items per page.',
        schema: { type: 'integer', minimum: 1, maximum: CHAIN_MAX_LIMIT, default: CHAIN_DEFAULT_LIMIT },
      },
      {
        name: 'from',
        description:
          'Only bundles admitted at or after this instant (ISO 8601 UTC, e.g. 2026-11-21T00:00:00Z).',
        schema: instant,
      },
      {
        name: 'to',
        description: 'Only bundles admitted before this instant (ISO 8601 UTC); must be later than from.',
        schema: instant,
      },
    ],
    queryReadBy: 'handler',
    tags: ['governance'],
    operationId: 'getChain',
    summary: 'The tenant’s admitted proof bundles, paginated, oldest first',
    description: 'Only page, limit, from and to are accepted; any other query parameter answers 400.',
    responses: {
      '200': { description: 'One page.', content: json(schema('urn:gov:response:chain-page')) },
      '400': invalid('A query parameter is unknown, repeated or out of range, or to is not later than from.'),
    },
    handler: getChain,
  },
];

function getChain(services: GovernanceServices) {
  return async (req: Request, res: Response) => {
    const parsed = parseChainQuery(req.query);
    if (!parsed.ok) return sendInvalid(res, parsed.problems);
    const { tenant } = callerOf(res);
    res.json(await chainPage(services, tenant.tenant_id, parsed.value));
  };
}
async function chainPage(services: GovernanceServices, tenantId: string, query: ChainQuery) {
  const range: Record<string, { gte?: string; lt?: string }> = {};
  if (query.from || query.to) {
    range.admitted_at = {
      ...(query.from ? { gte: query.from } : {}),
      ...(query.to ? { lt: query.to } : {}),
    };
  }
  const where = { tenant_id: tenantId };
  const page = await services.readModels.find<BundleView>(governanceProjection, BUNDLES, {
    where,
    range,
    sort: { field: 'admitted_position', direction: 'asc' },
    limit: query.limit,
    skip: (query.page - 1) * query.limit,
  });
  // Over the whole range, not the page; index (tenant_id, admitted_at) keeps it to the matches.
  const total = await services.readModels.count(governanceProjection, BUNDLES, where, range);
  return {
    page: query.page,
    limit: query.limit,
    total,
    has_more: page.nextCursor !== null,
    items: page.items.map(({ data }) => ({
      artifact_hash: data.artifact_hash,
      log: data.log ?? SHARED_LOG_NAME,
      log_url: logUrlOf(services.config.publicUrl, data.log ?? SHARED_LOG_NAME),
      leaf_index: data.leaf_index,
      leaf_hash: data.leaf_hash,
      subject_id: data.subject_id,
      parent_bundle_hash: parentBundleHashOf(data),
      lifecycle: data.lifecycle,
      admitted_at: data.admitted_at,
      compliance_url: `${services.config.publicUrl}/governance/report/${data.artifact_hash}`,
      replay_url: `${services.config.publicUrl}/governance/replay/${data.artifact_hash}`,
    })),
  };
}
