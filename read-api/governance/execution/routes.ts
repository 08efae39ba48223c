/** The closed-loop reads of an executed authorization: its variance record and its three leaves. */
import type { Request, Response } from 'express';
import type { GovernanceServices } from '../../../command-api/governance/services';
import { CLOSED_LOOP_TIER } from '../../../command-api/governance/tenants/access';
import { type Caller, callerOf } from '../../../command-api/governance/tenants/auth';
import { toHex } from '../../../merkle-core';
import {
  CLOSED_LOOP,
  type ClosedLoopView,
  governanceProjection,
  LEAVES,
  type StoredLeaf,
} from '../../../projectors/governance/governance-projection';
import { invalid, json, notFound, schema } from '../../../runtime/http/openapi-parts';
import { sha256Param } from '../../../runtime/http/path-params';
import type { Route } from '../../../runtime/http/route-table';
import { type LeafLog, leafLogOf } from '../log/leaf-log';
import { sendNotFound } from '../not-found';

const authLeafHash = sha256Param('auth_leaf_hash', 'The authorization leaf.');

export const executionReadRoutes: readonly Route<GovernanceServices>[] = [
  {
    method: 'get',
    path: '/governance/variance/:auth_leaf_hash',
    access: CLOSED_LOOP_TIER,
    params: [authLeafHash],
    tags: ['closed-loop'],
    operationId: 'getVariance',
    summary: 'The GOV_VARIANCE_RECORD_V1 of an authorization (L2 and above)',
    responses: {
      '200': { description: 'The variance record.', content: json(schema('urn:gov:record:variance-record')) },
      '400': invalid('auth_leaf_hash is not a SHA-256 hex digest.'),
      '404': notFound('The authorization has no execution (or is not this tenant’s).'),
    },
    handler: getVariance,
  },
  {
    method: 'get',
    path: '/governance/triple-leaf/:auth_leaf_hash',
    access: CLOSED_LOOP_TIER,
    params: [authLeafHash],
    tags: ['closed-loop'],
    operationId: 'getTripleLeaf',
    summary: 'The authorization, execution and variance leaves of an action (L2 and above)',
    responses: {
      '200': {
        description: 'The three leaves with inclusion proofs against the latest signed tree head.',
        content: json(schema('urn:gov:response:triple-leaf')),
      },
      '400': invalid('auth_leaf_hash is not a SHA-256 hex digest.'),
      '404': notFound('The authorization has no execution (or is not this tenant’s).'),
    },
    handler: getTripleLeaf,
  },
];

function getVariance(services: GovernanceServices) {
  return async (req: Request, res: Response) => {
    const loop = await ownClosedLoop(services, callerOf(res), req.params.auth_leaf_hash as string);
    if (!loop?.variance)
      return sendNotFound(res, 'variance record for authorization', req.params.auth_leaf_hash as string);
    res.json(loop.variance);
  };
}

function getTripleLeaf(services: GovernanceServices) {
  return async (req: Request, res: Response) => {
    const authLeafHash = req.params.auth_leaf_hash as string;
    const loop = await ownClosedLoop(services, callerOf(res), authLeafHash);
    // The three leaves may be in different logs (a tenant moved to L4 between them): each is proved
    // in its own, against that log's latest head.
    const authLog = await leafLogOf(services, await authorizationLogOf(services, authLeafHash));
    const authorization = await authLog.log.leafByHash(authLeafHash);
    if (!loop?.variance || loop.variance_leaf_hash === null || !authorization) {
      return sendNotFound(res, 'closed loop of authorization', authLeafHash);
    }
    const withProof = ({ name, url, log }: LeafLog, leafIndex: number, leafHash: string, record: object) => {
      const { sth } = log.latest();
      return {
        log: name,
        log_url: url,
        leaf_index: leafIndex,
        leaf_hash: leafHash,
        record,
        inclusion_proof: {
          tree_size: sth.tree_size,
          audit_path: log.inclusionProof(leafIndex, sth.tree_size).map(toHex),
        },
        sth: { log: name, ...sth },
      };
    };
    const authorizationLeaf = withProof(
      authLog,
      authorization.leaf_index,
      authLeafHash,
      authorization.record,
    );
    res.json({
      auth_leaf_hash: authLeafHash,
      authorization: authorizationLeaf,
      execution: withProof(
        await leafLogOf(services, loop.exec_log),
        loop.exec_leaf_index,
        loop.exec_leaf_hash,
        loop.trace,
      ),
      variance: withProof(
        await leafLogOf(services, loop.variance_log),
        loop.variance_leaf_index!,
        loop.variance_leaf_hash,
        loop.variance,
      ),
      sth: authorizationLeaf.sth,
    });
  };
}

/** The log the authorization leaf is in (its `leaves` document's; absent there: shared). */
async function authorizationLogOf(services: GovernanceServices, authLeafHash: string) {
  const doc = await services.readModels.get<StoredLeaf>(governanceProjection, LEAVES, authLeafHash);
  return doc?.data.log;
}

/** A closed loop of the caller's tenant; another tenant's reads exactly like a missing one. */
async function ownClosedLoop(
  services: GovernanceServices,
  caller: Caller,
  authLeafHash: string,
): Promise<ClosedLoopView | null> {
  const doc = await services.readModels.get<ClosedLoopView>(governanceProjection, CLOSED_LOOP, authLeafHash);
  return doc && doc.data.tenant_id === caller.tenant.tenant_id ? doc.data : null;
}
