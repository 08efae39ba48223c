import { type NextFunction, type Request, type Response, Router } from 'express';
import { policyView } from '../../domain/governance/policy';
import { buildComplianceReport, renderReportMarkdown } from '../../domain/governance/report';
import { TIER_LIMITS } from '../../domain/governance/tier-limits';
import { canonicalJson, toHex } from '../../merkle-core';
import {
  BUNDLES,
  type BundleView,
  CLOSED_LOOP,
  type ClosedLoopView,
  governanceProjection,
  SUBJECTS,
  type SubjectView,
  subjectKey,
} from '../../projectors/governance/governance-projection';
import { type TenantView, tenantPolicy } from '../../projectors/governance/tenants';
import { authenticate, type Caller, callerOf, requireClosedLoopTier } from '../../runtime/http/auth';
import { sendError, sendInvalid } from '../../runtime/http/errors';
import { takesNoQuery, takesQuery, unknownQueryParameters } from '../../runtime/http/query';
import { limitRequestRate } from '../../runtime/http/rate-limit';
import type { GovernanceServices } from '../../runtime/wiring/governance-services';
import { accountView } from './account/account-view';
import { type ChainQuery, parseChainQuery } from './chain/chain-query';
import { bundlePartsOf, parentBundleHashOf } from './reports/admission-records';

const HASH = /^[0-9a-f]{64}$/;

/** The authenticated read side of the governance API, plus the public replay bundle. */
export function governanceReadRoutes(services: GovernanceServices): Router {
  const router = Router();
  const auth = [authenticate(services), limitRequestRate(services)];
  const { readModels } = services;
  const closedLoop = [...auth, requireClosedLoopTier];

  router.get('/account', ...auth, takesNoQuery, (_req: Request, res: Response) => {
    res.json(accountView(callerOf(res).tenant, services.clock()));
  });

  // Any valid key reads the policy, one in its grace period after a rotation too.
  router.get('/governance/policy', ...auth, takesNoQuery, (_req: Request, res: Response) => {
    res.json(policyView(tenantPolicy(callerOf(res).tenant)));
  });

  router.get('/governance/report/:artifact_hash', ...auth, hashParam('artifact_hash'), async (req, res) => {
    const caller = callerOf(res);
    const format = exportFormat(req, res);
    if (format === undefined) return;
    if (format !== null && !TIER_LIMITS[caller.tenant.tier].closedLoop) {
      sendError(
        res,
        403,
        'TIER_INSUFFICIENT',
        `exporting a report needs tier L2 or above; the tenant is on ${caller.tenant.tier}`,
      );
      return;
    }
    const bundle = await ownBundle(services, caller, req.params.artifact_hash as string);
    if (!bundle) return notFound(res, 'report', req.params.artifact_hash as string);
    const report = await buildReport(services, bundle);
    if (format === 'markdown') {
      res.setHeader('Content-Disposition', `attachment; filename="gov-report-${bundle.artifact_hash}.md"`);
      res.type('text/markdown; charset=utf-8').send(renderReportMarkdown(report));
      return;
    }
    if (format === 'json') {
      res.setHeader('Content-Disposition', `attachment; filename="gov-report-${bundle.artifact_hash}.json"`);
    }
    res.json(report);
  });

  router.get('/governance/chain', ...auth, async (req: Request, res: Response) => {
    const parsed = parseChainQuery(req.query);
    if (!parsed.ok) return sendInvalid(res, parsed.problems);
    const { tenant } = callerOf(res);
    res.json(await chainPage(services, tenant.tenant_id, parsed.value));
  });

  router.get('/governance/status', ...auth, takesQuery('subject_id'), async (req: Request, res: Response) => {
    const { tenant } = callerOf(res);
    const subjectId = req.query.subject_id;
    if (
      subjectId !== undefined &&
      (typeof subjectId !== 'string' || subjectId.length === 0 || subjectId.length > 256)
    ) {
      return sendInvalid(res, [
        { pointer: 'query/subject_id', reason: 'must be one subject id of 1 to 256 characters' },
      ]);
    }
    const subject =
      typeof subjectId === 'string'
        ? await readModels.get<SubjectView>(
            governanceProjection,
            SUBJECTS,
            subjectKey(tenant.tenant_id, subjectId),
          )
        : (
            await readModels.find<SubjectView>(governanceProjection, SUBJECTS, {
              where: { tenant_id: tenant.tenant_id },
              sort: { field: 'updated_at', direction: 'desc' },
              limit: 1,
            })
          ).items[0];
    if (typeof subjectId === 'string' && !subject) return notFound(res, 'subject', subjectId);
    const subjects = await readModels.count(governanceProjection, SUBJECTS, { tenant_id: tenant.tenant_id });
    res.json(statusView(tenant, subject?.data ?? null, subjects, services.clock()));
  });

  router.get(
    '/governance/variance/:auth_leaf_hash',
    ...closedLoop,
    takesNoQuery,
    hashParam('auth_leaf_hash'),
    async (req, res) => {
      const loop = await ownClosedLoop(services, callerOf(res), req.params.auth_leaf_hash as string);
      if (!loop?.variance)
        return notFound(res, 'variance record for authorization', req.params.auth_leaf_hash as string);
      res.json(loop.variance);
    },
  );

  router.get(
    '/governance/triple-leaf/:auth_leaf_hash',
    ...closedLoop,
    takesNoQuery,
    hashParam('auth_leaf_hash'),
    async (req, res) => {
      const authLeafHash = req.params.auth_leaf_hash as string;
      const loop = await ownClosedLoop(services, callerOf(res), authLeafHash);
      const authorization = await services.log.leafByHash(authLeafHash);
      if (!loop?.variance || loop.variance_leaf_hash === null || !authorization) {
        return notFound(res, 'closed loop of authorization', authLeafHash);
      }
      const { sth } = services.log.latest();
      const withProof = (leafIndex: number, leafHash: string, record: object) => ({
        leaf_index: leafIndex,
        leaf_hash: leafHash,
        record,
        inclusion_proof: {
          tree_size: sth.tree_size,
          audit_path: services.log.inclusionProof(leafIndex, sth.tree_size).map(toHex),
        },
      });
      res.json({
        auth_leaf_hash: authLeafHash,
        authorization: withProof(authorization.leaf_index, authLeafHash, authorization.record),
        execution: withProof(loop.exec_leaf_index, loop.exec_leaf_hash, loop.trace),
        variance: withProof(loop.variance_leaf_index!, loop.variance_leaf_hash, loop.variance),
        sth,
      });
    },
  );

  // Public and content-addressed: anyone holding the hash can fetch the bundle and recompute it.
  router.get(
    '/governance/replay/:artifact_hash',
    takesNoQuery,
    hashParam('artifact_hash'),
    async (req: Request, res: Response) => {
      const bundle = await readModels.get<BundleView>(
        governanceProjection,
        BUNDLES,
        req.params.artifact_hash as string,
      );
      // No caller here, so no tenant: the hash is simply unknown.
      if (!bundle)
        return sendError(
          res,
          404,
          'NOT_FOUND',
          `no admitted proof bundle has artifact hash ${req.params.artifact_hash}`,
        );
      const parts = await bundlePartsOf(services.eventStore, bundle.data);
      res.setHeader('Cache-Control', 'public, max-age=31536000, immutable');
      res.setHeader('Access-Control-Allow-Origin', '*');
      res.type('application/json').send(canonicalJson(parts.bundle));
    },
  );

  return router;
}

function hashParam(name: string) {
  return (req: Request, res: Response, next: NextFunction): void => {
    if (HASH.test(String(req.params[name]))) {
      next();
      return;
    }
    sendInvalid(res, [
      { pointer: `path/${name}`, reason: 'must be a SHA-256 digest: 64 lowercase hex characters' },
    ]);
  };
}

/** `?format=json|markdown` asks for an export; none is the report view. undefined: answered 400. */
function exportFormat(req: Request, res: Response): 'json' | 'markdown' | null | undefined {
  const unknown = unknownQueryParameters(Object.keys(req.query), ['format']);
  if (unknown.length > 0) {
    sendInvalid(res, unknown);
    return undefined;
  }
  const format = req.query.format;
  if (format === undefined) return null;
  if (format === 'json' || format === 'markdown') return format;
  sendInvalid(res, [{ pointer: 'query/format', reason: 'must be json or markdown' }]);
  return undefined;
}

function notFound(res: Response, what: string, id: string): void {
  sendError(res, 404, 'NOT_FOUND', `no ${what} ${id} for this tenant`);
}

/** A bundle of the caller's tenant; another tenant's reads exactly like a missing one. */
async function ownBundle(
  services: GovernanceServices,
  caller: Caller,
  artifactHash: string,
): Promise<BundleView | null> {
  const doc = await services.readModels.get<BundleView>(governanceProjection, BUNDLES, artifactHash);
  return doc && doc.data.tenant_id === caller.tenant.tenant_id ? doc.data : null;
}

async function ownClosedLoop(
  services: GovernanceServices,
  caller: Caller,
  authLeafHash: string,
): Promise<ClosedLoopView | null> {
  const doc = await services.readModels.get<ClosedLoopView>(governanceProjection, CLOSED_LOOP, authLeafHash);
  return doc && doc.data.tenant_id === caller.tenant.tenant_id ? doc.data : null;
}

/** The GOV_COMPLIANCE_REPORT_V1 of an admitted bundle, its inclusion proof leading to `head`. */
export async function buildReport(
  services: GovernanceServices,
  bundle: BundleView,
  head = services.log.latest(),
) {
  const { sth } = head;
  const parts = await bundlePartsOf(services.eventStore, bundle);
  return buildComplianceReport({
    bundle: parts.bundle,
    gate_details: bundle.gate_details,
    certificate: parts.certificate,
    envelope: parts.envelope,
    leaf_index: bundle.leaf_index,
    sth,
    inclusion_proof: {
      leaf_index: bundle.leaf_index,
      tree_size: sth.tree_size,
      audit_path: services.log.inclusionProof(bundle.leaf_index, sth.tree_size).map(toHex),
    },
    lifecycle: bundle.lifecycle,
    observables: bundle.observables,
    admitted_at: bundle.admitted_at,
    replay_url: `${services.config.publicUrl}/governance/replay/${bundle.artifact_hash}`,
  });
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

function statusView(tenant: TenantView, subject: SubjectView | null, subjects: number, now: Date) {
  const account = accountView(tenant, now);
  return {
    tenant_id: tenant.tenant_id,
    tier: tenant.tier,
    subject_id: subject?.subject_id ?? null,
    lifecycle: subject?.lifecycle ?? null,
    observables: subject?.observables ?? null,
    consecutive_fails: subject?.consecutive_fails ?? 0,
    consecutive_breaches: subject?.consecutive_breaches ?? 0,
    subject_leaves: subject?.leaf_count ?? 0,
    subjects,
    trial_leaves_remaining: account.trial.leaves_remaining,
    trial: account.trial,
    leaves_today: account.limits.leaves_today,
    limits: account.limits,
  };
}
