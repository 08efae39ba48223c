/**
 * `GET /gov/v1/logs/:log/anchor?tree_size=N`: where a log other than the shared one is anchored in the
 * shared log. The first anchor of the log at or after size N (its `log_anchors` document: the shared
 * leaf holding the log's checkpoint of that size, record GOV_LOG_ANCHOR_V1), with the inclusion proof of
 * that leaf in the shared log's latest signed tree. Anchors are admitted by the shared log's sequencer
 * every GOV_ANCHOR_INTERVAL_MS when a log changed (projectors/log/log-anchorer.ts).
 */
import type { Request, Response } from 'express';
import type { GovernanceServices } from '../../../command-api/governance/services';
import { SHARED_LOG_NAME } from '../../../domain/log';
import type { LogAnchor } from '../../../event-schemas';
import {
  governanceProjection,
  LOG_ANCHORS,
  type LogAnchorView,
} from '../../../projectors/governance/governance-projection';
import { sendError } from '../../../runtime/http/errors';
import { namedLog } from '../../../runtime/http/named-log';
import { json, notFound, readModelsBehind, schema } from '../../../runtime/http/openapi-parts';
import { PUBLIC, type Route } from '../../../runtime/http/route-table';
import {
  inclusionProofJson,
  int,
  invalidQuery,
  LOG_PARAMETER,
  LOG_QUERY_RULES,
  type LogsServices,
  logIntegerSchema,
  logOk,
  parseQuery,
} from './routes';

type AnchorServices = LogsServices & Pick<GovernanceServices, 'readModels'>;

const ANCHOR_QUERY = { tree_size: int(true) } as const;

const WHEN =
  "the shared log's sequencer anchors each other log's latest signed checkpoint every GOV_ANCHOR_INTERVAL_MS (10 s by default) when it changed";

export function logAnchorRoute<S extends AnchorServices>(): Route<S> {
  return {
    method: 'get',
    path: '/:log/anchor',
    access: PUBLIC,
    params: [LOG_PARAMETER],
    query: [
      {
        name: 'tree_size',
        description:
          "The log's tree size N to find an anchor for: the answer is the log's first anchor at or after N (its tree_size ≥ N).",
        schema: logIntegerSchema(0),
        required: true,
      },
    ],
    queryReadBy: 'handler',
    tags: ['log'],
    operationId: 'getLogAnchor',
    summary: 'Where a log’s checkpoint of size N (or the first after it) is anchored in the shared log',
    description: `Logs other than the shared one (the test log, dedicated logs) are anchored in the shared log: ${WHEN}, as a shared-log leaf of record type GOV_LOG_ANCHOR_V1 holding the checkpoint. The answer gives that leaf, its record, the shared log's latest signed tree head and the leaf's inclusion proof into it: verify the checkpoint under the log's key (its /keys) and the proof under the shared log's (GET /gov/v1/log/keys). ${LOG_QUERY_RULES}`,
    responses: {
      '200': logOk('The anchor and its proof.', json(schema('urn:gov:response:log-anchor'))),
      '400': invalidQuery('tree_size is missing or malformed, or the query has other parameters.'),
      '404': notFound(
        `No log has this name; or it is the shared log, which is not anchored; or no anchor of the log covers tree_size yet (${WHEN}).`,
      ),
      '503': readModelsBehind,
    },
    handler: (services) => async (req: Request, res: Response) => {
      const name = req.params.log as string;
      const query = parseQuery(req, res, ANCHOR_QUERY);
      if (!query) return;
      if (name === SHARED_LOG_NAME) {
        sendError(
          res,
          404,
          'NOT_FOUND',
          'the shared log is not anchored: it is the log the others are anchored in (ask for the anchor of the test log or of a dedicated-<24 hex> log)',
        );
        return;
      }
      if (!(await namedLog(services.logs, name, res))) return;
      const size = query.tree_size;
      const page = await services.readModels.find<LogAnchorView>(governanceProjection, LOG_ANCHORS, {
        where: { log: name },
        range: { tree_size: { gte: size } },
        sort: { field: 'tree_size', direction: 'asc' },
        limit: 1,
      });
      const anchor = page.items[0]?.data;
      const shared = services.logs.get(SHARED_LOG_NAME) ?? services.log;
      let latest = shared.latest().sth;
      if (anchor && anchor.leaf_index >= latest.tree_size) latest = (await shared.caughtUp()).sth;
      if (!anchor || anchor.leaf_index >= latest.tree_size) {
        sendError(
          res,
          404,
          'NOT_FOUND',
          anchor
            ? `the anchor of log ${name} at size ${anchor.tree_size} is admitted but not yet under a signed tree head of the shared log: retry in a moment`
            : `no anchor of log ${name} covers tree size ${size} yet: ${WHEN}; retry after the next anchoring`,
        );
        return;
      }
      const leaf = await shared.leafByIndex(anchor.leaf_index);
      if (!leaf)
        throw new Error(`the shared log has no leaf ${anchor.leaf_index}, which anchors log ${name}`);
      const record = leaf.record as LogAnchor;
      const head = shared.latest();
      const proof = inclusionProofJson(
        shared,
        SHARED_LOG_NAME,
        anchor.leaf_hash,
        anchor.leaf_index,
        head.sth.tree_size,
      );
      res.setHeader('Cache-Control', 'no-cache');
      res.json({
        log: name,
        tree_size: anchor.tree_size,
        anchor: { leaf_index: anchor.leaf_index, leaf_hash: anchor.leaf_hash, record },
        shared: { sth: { log: SHARED_LOG_NAME, ...head.sth }, inclusion_proof: JSON.parse(proof) },
      });
    },
  };
}
