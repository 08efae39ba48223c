/**
 * The agent's leaf records, signed with the node key: GOV_AGENT_CONFIG_V1 (one per config version,
 * chained by the previous version's leaf hash) and GOV_AGENT_PASSPORT_V1 (the agent's identity, naming
 * config version 1 by its leaf hash). Records hold commitments, never content: the config is committed
 * to as SHA-256(nonce ‖ canonical JSON of the config), the nonce kept in the private event.
 */
import { createHash, createPublicKey, type KeyObject } from 'node:crypto';
import { publicKeyId, signRecord, verifyRecord, without } from '../../../domain/governance/signing';
import { leafHashOfRecord } from '../../../domain/log/record';
import type { AgentSettings } from '../../../event-schemas';
import { canonicalJson } from '../../../merkle-core';
import type { AgentRecordSealer, SealedLeaf } from './agent-commands';

const AGENT_CONFIG_RECORD = 'GOV_AGENT_CONFIG_V1';
const AGENT_PASSPORT_RECORD = 'GOV_AGENT_PASSPORT_V1';

/** hex SHA-256(nonce ‖ canonical JSON of `content`), the nonce being 32 bytes given as hex. */
export function contentCommitment(nonceHex: string, content: unknown): string {
  return createHash('sha256')
    .update(Buffer.from(nonceHex, 'hex'))
    .update(canonicalJson(content), 'utf8')
    .digest('hex');
}

function sealed(unsigned: Record<string, unknown>, privateKey: KeyObject): SealedLeaf {
  const record = { ...unsigned, signature: signRecord(unsigned, privateKey) };
  return { record, leaf_hash: Buffer.from(leafHashOfRecord(record)).toString('hex') };
}

/** Seals the agent's records with the node's private key. */
export function nodeRecordSealer(privateKey: KeyObject): AgentRecordSealer {
  const keyId = publicKeyId(createPublicKey(privateKey));
  return {
    config: (input) =>
      sealed(
        {
          record_type: AGENT_CONFIG_RECORD,
          agent_id: input.agentId,
          tenant_id: input.tenantId,
          version: input.version,
          config_commitment: contentCommitment(input.nonce, input.config),
          previous_leaf_hash: input.previousLeafHash,
          versioned_at: input.at,
          key_id: keyId,
        },
        privateKey,
      ),
    passport: (input) =>
      sealed(
        {
          record_type: AGENT_PASSPORT_RECORD,
          agent_id: input.agentId,
          tenant_id: input.tenantId,
          created_at: input.createdAt,
          config_leaf_hash: input.configLeafHash,
          key_id: keyId,
        },
        privateKey,
      ),
  };
}

/** A config version as the read side keeps it, for checking the chain. */
export interface StoredConfigVersion {
  version: number;
  config: AgentSettings;
  nonce: string;
  record: Record<string, unknown>;
  leaf_hash: string;
}

/**
 * What is wrong with a chain of config versions (in version order), checked against the node's keys:
 * each record's leaf hash, its signature, its commitment to the config, and its link to the version
 * before. No problems: the chain verifies.
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
    if (Buffer.from(leafHashOfRecord(record)).toString('hex') !== stored.leaf_hash)
      problems.push(`${at}: its record does not hash to its leaf hash`);
    const signature = record.signature;
    const unsigned = without(record, 'signature');
    if (typeof signature !== 'string' || !publicKeys.some((key) => verifyRecord(unsigned, signature, key)))
      problems.push(`${at}: its signature does not verify with the node's keys`);
    if (record.config_commitment !== contentCommitment(stored.nonce, stored.config))
      problems.push(`${at}: its commitment does not match the stored config`);
    if (record.previous_leaf_hash !== previous)
      problems.push(`${at}: it does not link to the leaf hash of version ${stored.version - 1}`);
    previous = stored.leaf_hash;
  });
  return problems;
}
