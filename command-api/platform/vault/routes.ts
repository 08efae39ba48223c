/**
 * Storing and deleting an agent's model provider keys (the BYOK vault). The key is sealed before its
 * command is decided (AES-256-GCM with the owner's data key), and only its provider and prefix are
 * answered. Callers: the owner's session, or a key of the agent with scope `agent:write`.
 */
import type { Request, Response } from 'express';
import {
  isVaultProvider,
  VAULT_PROVIDERS,
  type VaultProvider,
  vaultKeyPrefix,
} from '../../../domain/platform/vault';
import type { StoreVaultKeyBody } from '../../../event-schemas';
import { VAULT_EVENT_TYPES } from '../../../projectors/platform/vault';
import { json, schema } from '../../../runtime/http/openapi-parts';
import { platformErrorResponse, sendPlatformError } from '../../../runtime/http/platform-errors';
import type { Route } from '../../../runtime/http/route-table';
import { agentAccess, agentOf } from '../accounts/access';
import { userStream } from '../accounts/user-state';
import { agentIdParameter } from '../agents/agent-http';
import { requireFeature } from '../quota/feature-gate';
import { sendRefusal } from '../refusal';
import type { PlatformServices } from '../services';
import { DATA_KEY_RACE, decideDeleteVaultKey, decideStoreVaultKey } from './vault-commands';
import { sealedForStore, VaultLockedError } from './vault-keys';

const VAULT_LOCKED_DETAIL =
  "the vault cannot be opened with this server's master key (GOV_VAULT_KEY or keys/vault-master.key): an operator must start it with the key the vault was made with";

/** 503 for a vault this server cannot open: logged for the operator (no key in the line), nothing stored. */
function sendVaultLocked(services: PlatformServices, res: Response, error: VaultLockedError): void {
  services.logger.error({ err: { message: error.message } }, 'vault locked: wrong master key');
  sendPlatformError(res, 503, 'service_unavailable', VAULT_LOCKED_DETAIL);
}

const providerQuery = {
  name: 'provider',
  description: `The provider whose key to delete: ${VAULT_PROVIDERS.join(', ')}.`,
  schema: { type: 'string', enum: [...VAULT_PROVIDERS] },
  required: true,
};

const LOCKED_RESPONSE = platformErrorResponse(
  "service_unavailable: this server's vault master key is not the one the owner's vault was made with; nothing was stored.",
  ['service_unavailable'],
);

export const vaultCommandRoutes: readonly Route<PlatformServices>[] = [
  {
    method: 'put',
    path: '/v1/agents/:agentId/vault',
    access: agentAccess('agent:write'),
    params: [agentIdParameter],
    body: { command: 'store-vault-key', description: 'The provider and its API key.' },
    use: requireFeature('vault'),
    tags: ['keys'],
    operationId: 'storeVaultKey',
    summary: "Store a model provider's API key for the agent (encrypted)",
    description:
      "Encrypted at rest with AES-256-GCM under the owner's data key, itself wrapped by the node's vault master key; a key already stored for the provider is replaced. The key is never answered, logged or put in a read model: answers show its first 8 characters. Callers: the owner's session, or a key of the agent with scope `agent:write`.",
    responses: {
      '200': { description: 'Stored.', content: json(schema('urn:gov:response:vault-stored')) },
      '503': LOCKED_RESPONSE,
    },
    handler: storeVaultKey,
  },
  {
    method: 'delete',
    path: '/v1/agents/:agentId/vault',
    access: agentAccess('agent:write'),
    params: [agentIdParameter],
    query: [providerQuery],
    use: requireFeature('vault'),
    tags: ['keys'],
    operationId: 'deleteVaultKey',
    summary: "Delete the agent's stored key of a provider",
    description: "Callers: the owner's session, or a key of the agent with scope `agent:write`.",
    responses: {
      '200': { description: 'Deleted.', content: json(schema('urn:gov:response:vault-deleted')) },
      '400': platformErrorResponse('invalid_request: `provider` is missing or not one of the three.', [
        'invalid_request',
      ]),
      '404': platformErrorResponse(
        'not_found: no such agent for this caller, or no key of this provider stored for it.',
        ['not_found'],
      ),
    },
    handler: deleteVaultKey,
  },
];

function context(services: PlatformServices, res: Response) {
  return { now: services.clock(), correlationId: res.locals.correlationId as string };
}

function storeVaultKey(services: PlatformServices) {
  return async (req: Request, res: Response) => {
    const { agentId, ownerId } = agentOf(res);
    const body = req.body as StoreVaultKeyBody;
    const place = { userId: ownerId, agentId, provider: body.provider };
    const prefix = vaultKeyPrefix(body.api_key);
    // Two first keys of one user at once: one makes the data key, the other seals again with it.
    for (let attempt = 0; ; attempt++) {
      let command: Awaited<ReturnType<typeof sealedForStore>>;
      try {
        command = await sealedForStore(services, place, body.api_key, prefix);
      } catch (error) {
        if (error instanceof VaultLockedError) return sendVaultLocked(services, res, error);
        throw error;
      }
      const outcome = await services.users.execute(userStream(ownerId), (state) =>
        decideStoreVaultKey(state, command, context(services, res)),
      );
      if (outcome.kind === 'refused') {
        if (outcome.message === DATA_KEY_RACE && attempt < 2) continue;
        return sendRefusal(res, outcome);
      }
      if (outcome.position !== null) await services.awaitProjections(outcome.position, VAULT_EVENT_TYPES);
      res.json({
        agent_id: agentId,
        provider: body.provider,
        prefix: outcome.prefix,
        stored_at: outcome.stored_at,
        replaced: outcome.replaced,
      });
      return;
    }
  };
}

function deleteVaultKey(services: PlatformServices) {
  return async (req: Request, res: Response) => {
    const { agentId, ownerId } = agentOf(res);
    const provider = req.query.provider;
    if (!isVaultProvider(provider)) {
      sendPlatformError(
        res,
        400,
        'invalid_request',
        `provider must be one of ${VAULT_PROVIDERS.join(', ')}: DELETE .../vault?provider=openai`,
      );
      return;
    }
    const outcome = await services.users.execute(userStream(ownerId), (state) =>
      decideDeleteVaultKey(state, { agentId, provider: provider as VaultProvider }, context(services, res)),
    );
    if (outcome.kind === 'refused') return sendRefusal(res, outcome);
    if (outcome.position !== null) await services.awaitProjections(outcome.position, VAULT_EVENT_TYPES);
    res.json({ agent_id: agentId, provider, deleted: true, deleted_at: outcome.deleted_at });
  };
}
