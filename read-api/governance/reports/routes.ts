/** Compliance reports of the tenant's proof bundles, and the public replay of a bundle by its hash. */
import type { Request, Response } from 'express';
import type { GovernanceServices } from '../../../command-api/governance/services';
import { TENANT_KEY } from '../../../command-api/governance/tenants/access';
import { type Caller, callerOf } from '../../../command-api/governance/tenants/auth';
import { buildComplianceReport, renderReportMarkdown } from '../../../domain/governance/report';
import { TIER_LIMITS } from '../../../domain/governance/tier-limits';
import { canonicalJson, toHex } from '../../../merkle-core';
import {
  BUNDLES,
  type BundleView,
  governanceProjection,
} from '../../../projectors/governance/governance-projection';
import { sendError, sendInvalid } from '../../../runtime/http/errors';
import {
  errorResponse,
  headerRef,
  invalid,
  json,
  notFound,
  schema,
} from '../../../runtime/http/openapi-parts';
import { sha256Param } from '../../../runtime/http/path-params';
import { unknownQueryParameters } from '../../../runtime/http/query';
import { PUBLIC, type Route } from '../../../runtime/http/route-table';
import { leafLogOf } from '../log/leaf-log';
import { sendNotFound } from '../not-found';
import { bundlePartsOf } from './admission-records';

export const reportReadRoutes: readonly Route<GovernanceServices>[] = [
  {
    method: 'get',
    path: '/governance/report/:artifact_hash',
    access: TENANT_KEY,
    params: [sha256Param('artifact_hash', 'The proof bundle (artifact_hash of the evidence response).')],
    query: [
      {
        name: 'format',
        description:
          'Export format; needs tier L2 or above. Any other value answers 400 (pointer `query/format`).',
        schema: { type: 'string', enum: ['json', 'markdown'] },
      },
    ],
    queryReadBy: 'handler',
    tags: ['governance'],
    operationId: 'getComplianceReport',
    summary: 'The GOV_COMPLIANCE_REPORT_V1 of one of the tenant’s proof bundles',
    description:
      'Without `format` the report is the view (every tier). `format=json` or `format=markdown` exports it as a download (Content-Disposition: attachment), which needs tier L2 or above. Any other query parameter answers 400 (pointer `query/<name>`).',
    responses: {
      '200': {
        description:
          'The report: JSON, or Markdown for format=markdown. In the Markdown every value is escaped (HTML-significant characters and line breaks as character references, Markdown syntax with backslashes), so text from the evidence reads as itself and opens no HTML, link, image, heading, table cell or code span.',
        headers: { 'Content-Disposition': headerRef('ContentDisposition') },
        content: {
          'application/json': { schema: schema('urn:gov:record:compliance-report') },
          'text/markdown': { schema: { type: 'string' } },
        },
      },
      '400': invalid('artifact_hash is not a SHA-256 hex digest, or format is not json or markdown.'),
      '403': errorResponse('TIER_INSUFFICIENT: exporting (format given) needs tier L2 or above.', [
        'TIER_INSUFFICIENT',
      ]),
      '404': notFound("No such proof bundle for this tenant (another tenant's bundle answers the same)."),
    },
    handler: getReport,
  },
  // Public and content-addressed: anyone holding the hash can fetch the bundle and recompute it.
  {
    method: 'get',
    path: '/governance/replay/:artifact_hash',
    access: PUBLIC,
    params: [sha256Param('artifact_hash', 'The proof bundle.')],
    tags: ['governance'],
    operationId: 'getProofBundle',
    summary: 'The proof bundle, public and content-addressed (the replay_url)',
    description:
      'Anyone holding the hash can fetch the bundle: its body is the RFC 8785 canonical JSON whose SHA-256 is artifact_hash. Immutable, cacheable and CORS-enabled.',
    responses: {
      '200': {
        description: 'The GOV_PROOF_BUNDLE_V1, as canonical JSON.',
        headers: {
          'Cache-Control': headerRef('CacheControl'),
          'Access-Control-Allow-Origin': headerRef('AccessControlAllowOrigin'),
        },
        content: json(schema('urn:gov:record:proof-bundle')),
      },
      '400': invalid('artifact_hash is not a SHA-256 hex digest.'),
      '404': notFound('No proof bundle has this hash.'),
    },
    handler: replayBundle,
  },
];

function getReport(services: GovernanceServices) {
  return async (req: Request, res: Response) => {
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
    if (!bundle) return sendNotFound(res, 'report', req.params.artifact_hash as string);
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
  };
}

function replayBundle(services: GovernanceServices) {
  const { readModels } = services;
  return async (req: Request, res: Response) => {
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

/** A bundle of the caller's tenant; another tenant's reads exactly like a missing one. */
async function ownBundle(
  services: GovernanceServices,
  caller: Caller,
  artifactHash: string,
): Promise<BundleView | null> {
  const doc = await services.readModels.get<BundleView>(governanceProjection, BUNDLES, artifactHash);
  return doc && doc.data.tenant_id === caller.tenant.tenant_id ? doc.data : null;
}

/**
 * The GOV_COMPLIANCE_REPORT_V1 of an admitted bundle, its inclusion proof leading to the head of its
 * log signed at `treeSize` (the latest when absent, or when none was signed at that size).
 */
export async function buildReport(services: GovernanceServices, bundle: BundleView, treeSize?: number) {
  const leafLog = await leafLogOf(services, bundle.log);
  const { log } = leafLog;
  const pinned = treeSize === undefined ? null : await log.treeHeadAt(treeSize);
  const { sth } = pinned ?? log.latest();
  const parts = await bundlePartsOf(services.eventStore, bundle);
  return buildComplianceReport({
    bundle: parts.bundle,
    gate_details: bundle.gate_details,
    certificate: parts.certificate,
    envelope: parts.envelope,
    leaf_index: bundle.leaf_index,
    log: { name: leafLog.name, url: leafLog.url },
    sth,
    inclusion_proof: {
      leaf_index: bundle.leaf_index,
      tree_size: sth.tree_size,
      audit_path: log.inclusionProof(bundle.leaf_index, sth.tree_size).map(toHex),
    },
    lifecycle: bundle.lifecycle,
    observables: bundle.observables,
    admitted_at: bundle.admitted_at,
    replay_url: `${services.config.publicUrl}/governance/replay/${bundle.artifact_hash}`,
  });
}
