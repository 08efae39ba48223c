/**
 * The agent's leaf records, made by domain/platform/records.ts and signed with the node key:
 * GOV_AGENT_CONFIG_V1 (one per config version, chained by the previous version's leaf hash) and
 * GOV_AGENT_PASSPORT_V1 (naming config version 1 by its leaf hash). And the check of a chain of
 * config versions behind GET .../version-health.
 */
import type { KeyObject } from 'node:crypto';
import type { Authority } from '../../../domain/governance/envelope';
import {
  buildAgentConfig,
  buildAgentPassport,
  configCommitmentText,
  openCommitment,
  platformLeafHash,
  verifyPlatformRecord,
} from '../../../domain/platform/records';
import type { AgentConfig, AgentSettings } from '../../../event-schemas';
import type { AgentRecordSealer } from './agent-commands';

/** Seals the agent's records with the node's key. */
export function nodeRecordSealer(authority: Authority): AgentRecordSealer {
  return {
    config: (input) => {
      const { record, leafHash } = buildAgentConfig(
        {
          agent_id: input.agentId,
          tenant_id: input.tenantId,
          version: input.version,
          previous_config_hash: input.previousLeafHash,
          config: input.config,
          created_at: input.at,
        },
        input.nonce,
        authority,
      );
      return { record, leaf_hash: leafHash };
    },
    passport: (input) => {
      const { record, leafHash } = buildAgentPassport(
        {
          agent_id: input.agentId,
          owner: input.ownerId,
          tenant_id: input.tenantId,
          created_at: input.createdAt,
          config_hash: input.configLeafHash,
        },
        input.ownerNonce,
        authority,
      );
      return { record, leaf_hash: leafHash };
    },
  };
}

/** A config version as the read side keeps it, for checking the chain. */
export interface StoredConfigVersion {
  version: number;
  config: AgentSettings;
  nonce: string;
  record: AgentConfig;
  leaf_hash: string;
}

/**
 * What is wrong with a chain of config versions (in version order), checked against the node's keys
 * (current and retired): each record's leaf hash, its signature, its commitment to the config, and its
 * link to the version before. No problems: the chain verifies.
 */
export function configChainProblems(
  versions: readonly StoredConfigVersion[],
  publicKeys: readonly KeyObject[],
): string[] {
  const problems: string[] = [];
  let previous: string | null = null;
  versions.forEach((stored, index) => {
    const { record } = stored;
    const at = `config version ${stored.version}`;
    if (stored.version !== index + 1) problems.push(`${at} is out of sequence (expected ${index + 1})`);
    if (platformLeafHash(record) !== stored.leaf_hash)
      problems.push(`${at}: its record does not hash to its leaf hash`);
    if (!publicKeys.some((key) => verifyPlatformRecord(record, key).ok))
      problems.push(`${at}: its signature does not verify with the node's keys`);
    if (!openCommitment(stored.nonce, configCommitmentText(stored.config), record.config_commitment))
      problems.push(`${at}: its commitment does not match the stored config`);
    if (record.previous_config_hash !== previous)
      problems.push(`${at}: it does not link to the leaf hash of version ${stored.version - 1}`);
    previous = stored.leaf_hash;
  });
  return problems;
}
