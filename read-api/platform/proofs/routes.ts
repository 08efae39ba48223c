/**
 * `GET /v1/agents/:agentId/proofs/:leafHash`: the inclusion proof of one of the agent's leaves (a
 * governed action, a config version, its passport) under the newest signed tree head of the log it is
 * in, with where anyone can check it against the public log alone. `?open=1` adds what opens the
 * record's commitment (the content and its nonce), for the agent's owner or key to check.
 */
import type { Request, Response } from 'express';
import { agentAccess, agentOf } from '../../../command-api/platform/accounts/access';
import { agentIdParameter, ownerTenant } from '../../../command-api/platform/agents/agent-http';
import { agentStream } from '../../../command-api/platform/agents/agent-state';
import type { PlatformServices } from '../../../command-api/platform/services';
import { logUrlOf } from '../../../domain/log';
import { leafHashText, parseLeafHashText } from '../../../domain/platform/ids';
import { configCommitmentText } from '../../../domain/platform/records';
import type { AgentAction, AgentConfig, AgentPassport } from '../../../event-schemas';
import { toHex } from '../../../merkle-core';
import type { LogName } from '../../../ports/log';
import {
  governanceProjection,
  LEAVES,
  type StoredLeaf,
} from '../../../projectors/governance/governance-projection';
import { PLATFORM_LEAF_EVENT_TYPES } from '../../../projectors/log/log-sequencer';
import { json, schema } from '../../../runtime/http/openapi-parts';
import { platformErrorResponse, sendPlatformError } from '../../../runtime/http/platform-errors';
import type { Route } from '../../../runtime/http/route-table';
import { leafLogOf } from '../../governance/log/leaf-log';
import { admissionAt } from '../../governance/reports/admission-records';

/** The scope a key needs to read its agent's proofs. */
const AGENT_READ = agentAccess('agent:read');

const PROOF = json(schema('urn:gov:response:leaf-proof'));

export const proofReadRoutes: readonly Route<PlatformServices>[] = [
  {
    method: 'get',
    path: '/v1/agents/:agentId/proofs/:leafHash',
    access: AGENT_READ,
    params: [
      agentIdParameter,
      {
        name: 'leafHash',
        description: 'The leaf hash, `sha256:` + 64 lowercase hex digits, as the platform answers it.',
        schema: { type: 'string', pattern: '^sha256:[0-9a-f]{64}$' },
      },
    ],
    query: [
      {
        name: 'open',
        description:
          "`1`: add `opening`, the content and nonce that open the record's commitment (an action's content, a config version's settings, the passport's owner), for the agent's owner or key to check. Default `0`.",
        schema: { type: 'string', enum: ['0', '1'] },
      },
    ],
    tags: ['governance'],
    operationId: 'getLeafProof',
    summary: "The inclusion proof of one of the agent's leaves",
    description:
      "The leaf's index, the newest signed tree head of its log (JSON STH, with the log's name), and the RFC 9162 inclusion path from the leaf to that head's root. `verification_url` is the public log's proof for the same leaf (GET /gov/v1/log/proof?leaf_hash=…, or /gov/v1/logs/:log/proof), so anyone can check it with the public log alone; `verification_portal` is that log's public base. 404 (with the same members, `proof: null`) names why there is no proof: `unknown leaf`, or `not yet under a signed tree head`. A leaf that is not this agent's (another agent's, or a clearinghouse leaf) answers 403.",
    responses: {
      '200': { description: 'The proof.', content: PROOF },
      '400': platformErrorResponse('invalid_request: `open` is not 0 or 1, or the leaf hash is malformed.', [
        'invalid_request',
      ]),
      '403': platformErrorResponse(
        "forbidden: the leaf is not this agent's, the key is another agent's, or the key lacks `agent:read`.",
        ['forbidden'],
      ),
      '404': {
        description:
          'No proof (yet): the same members with `proof: null` and `proof_error` (`unknown leaf`, `not yet under a signed tree head`); or the platform error `not_found` when the agent is not the caller’s.',
        content: PROOF,
      },
    },
    handler: leafProof,
  },
];

const PLATFORM_LEAF_TYPES: ReadonlySet<string> = new Set([
  'GOV_AGENT_PASSPORT_V1',
  'GOV_AGENT_CONFIG_V1',
  'GOV_AGENT_ACTION_V1',
]);

function leafProof(services: PlatformServices) {
  return async (req: Request, res: Response) => {
    const { agentId, tenantId } = agentOf(res);
    const open = req.query.open;
    if (open !== undefined && open !== '0' && open !== '1') {
      sendPlatformError(res, 400, 'invalid_request', 'open is 1 (add the opening of the commitment) or 0.');
      return;
    }
    const hash = parseLeafHashText(req.params.leafHash);
    if (hash === null) {
      sendPlatformError(
        res,
        400,
        'invalid_request',
        'The leaf hash is written sha256: and 64 lowercase hex digits, as the platform answers it.',
      );
      return;
    }
    const stored = await services.readModels.get<StoredLeaf>(governanceProjection, LEAVES, hash);
    if (!stored) {
      const { log } = await ownerTenant(services, tenantId);
      res.status(404).json(noProof(services, agentId, hash, log, 'unknown leaf'));
      return;
    }
    const leaf = stored.data;
    if (
      !PLATFORM_LEAF_TYPES.has(leaf.leaf_type) ||
      leaf.subject_id !== agentId ||
      leaf.tenant_id !== tenantId
    ) {
      sendPlatformError(res, 403, 'forbidden', `The leaf ${leafHashText(hash)} is not one of this agent's.`);
      return;
    }
    const { name, url, log } = await leafLogOf(services, leaf.log);
    let head = log.latest();
    if (leaf.leaf_index >= head.sth.tree_size) head = await log.caughtUp();
    if (leaf.leaf_index >= head.sth.tree_size) {
      res.status(404).json(noProof(services, agentId, hash, name, 'not yet under a signed tree head'));
      return;
    }
    const size = head.sth.tree_size;
    const answer = {
      ...noProof(services, agentId, hash, name, null),
      proof: {
        leaf_index: leaf.leaf_index,
        tree_size: size,
        inclusion_path: log.inclusionProof(leaf.leaf_index, size).map(toHex),
        sth: { log: name, ...head.sth },
        log: name,
        log_url: url,
      },
    };
    if (open === '1') {
      res.json({ ...answer, opening: await openingOf(services, leaf) });
      return;
    }
    res.json(answer);
  };
}

/** The answer's members besides the proof (the proof null, and why when `error` is given). */
function noProof(
  services: PlatformServices,
  agentId: string,
  hash: string,
  log: LogName,
  error: string | null,
) {
  const base = logUrlOf(services.config.publicUrl, log);
  return {
    agent_id: agentId,
    hash: leafHashText(hash),
    proof: null,
    proof_error: error,
    verification_url: `${base}/proof?leaf_hash=${hash}`,
    verification_portal: base,
  };
}

/** What opens the record's commitment: the text committed to, its nonce, and the commitment. */
async function openingOf(
  services: PlatformServices,
  leaf: StoredLeaf,
): Promise<{ content: string; nonce: string; commitment: string }> {
  const { type, data } = await admissionAt(services.eventStore, leaf.position, PLATFORM_LEAF_EVENT_TYPES);
  switch (type) {
    case 'AgentActionDecided': {
      const event = data as { content: string; content_nonce: string; record: AgentAction };
      return {
        content: event.content,
        nonce: event.content_nonce,
        commitment: event.record.content_commitment,
      };
    }
    case 'AgentConfigVersioned': {
      const event = data as {
        config: Parameters<typeof configCommitmentText>[0];
        nonce: string;
        record: AgentConfig;
      };
      return {
        content: configCommitmentText(event.config),
        nonce: event.nonce,
        commitment: event.record.config_commitment,
      };
    }
    case 'AgentPassportIssued': {
      const event = data as { owner_nonce: string; record: AgentPassport };
      const owner = await ownerIdOf(services, leaf.subject_id);
      return { content: owner, nonce: event.owner_nonce, commitment: event.record.owner_commitment };
    }
  }
  throw new Error(`the leaf at position ${leaf.position} is not an agent platform leaf`);
}

/** The agent's owner's user id, from the agent's stream's first event. */
async function ownerIdOf(services: PlatformServices, agentId: string): Promise<string> {
  const state = await services.agents.state(agentStream(agentId));
  return state.owner_id;
}
