/**
 * The platform's leaf records: GOV_AGENT_PASSPORT_V1, GOV_AGENT_CONFIG_V1 and GOV_AGENT_ACTION_V1.
 * They hold commitments, never content: `commitment(nonce, content)` = hex SHA-256(nonce ‖ UTF-8
 * content), the random 32-byte nonce kept in the private event, so the public log shows that something
 * was decided without showing what. Each record is signed by the node key like the governance envelope
 * (`signRecord` over the record without `signature`); its leaf hash is the RFC 9162 leaf hash of the
 * signed record's canonical JSON.
 *
 * What each record leaves out, and why:
 * - the passport commits to its owner's user id with a nonce of its own: the user id is a hash of the
 *   email, so a plain user id could be tested against guessed emails;
 * - a configuration shows its governance mode in clear (an auditor needs to know whether failing
 *   actions were blocked) and commits to the rest (name, model, provider);
 * - an action shows each gate's pass or fail but not the gate's reason, which names must_not rules and
 *   the kinds of data found and so could tell something about the content; the reasons stay in the
 *   private event. The principal is committed to with a nonce of its own: a plain hash of a user id
 *   could be tested against guessed emails.
 */
import { createHash, type KeyObject, timingSafeEqual } from 'node:crypto';
import type { AgentAction, AgentConfig, AgentPassport } from '../../event-schemas';
import { canonicalJson, toHex } from '../../merkle-core';
import { type Authority, authorityNodeIdOf } from '../governance/envelope';
import type { GateName } from '../governance/gates';
import { signRecord, verifyRecord, without } from '../governance/signing';
import { leafHashOfRecord } from '../log';
import type { ActionType, Principal } from './action-gates';
import type { GovernanceMode, Verdict } from './verdict';

export type { AgentAction, AgentConfig, AgentPassport } from '../../event-schemas';
export type { Authority } from '../governance/envelope';

export type PlatformRecord = AgentPassport | AgentConfig | AgentAction;

/** A signed record and the leaf hash (64 hex) it is logged under. */
export interface SealedRecord<R extends PlatformRecord> {
  record: R;
  leafHash: string;
}

const NONCE = /^[0-9a-f]{64}$/;

/** hex SHA-256(nonce ‖ UTF-8 content); the nonce is 64 hex digits (32 bytes, `newNonce()`). */
export function commitment(nonce: string, content: string): string {
  if (!NONCE.test(nonce)) throw new Error('a commitment nonce is 64 lowercase hex digits (32 bytes)');
  return toHex(commitmentDigest(Buffer.from(nonce, 'hex'), content));
}

/** Whether content and nonce open the commitment; compared in constant time, false for malformed input. */
export function openCommitment(nonce: string, content: string, expected: string): boolean {
  if (!NONCE.test(nonce) || !NONCE.test(expected)) return false;
  return timingSafeEqual(commitmentDigest(Buffer.from(nonce, 'hex'), content), Buffer.from(expected, 'hex'));
}

/** SHA-256 over the nonce's bytes, then the content's UTF-8 (the compare wants bytes, not hex). */
function commitmentDigest(nonce: Buffer, content: string): Buffer {
  return createHash('sha256').update(nonce).update(content, 'utf8').digest();
}

// ------------------------------------------------------------------------------------------ configuration

/** What a configuration version commits to. */
export interface AgentConfigContent {
  name: string;
  model: string | null;
  model_provider: string | null;
  governance_mode: GovernanceMode;
}

/** The configuration's canonical JSON: the text its commitment covers and its owner opens it with. */
export function configCommitmentText(config: AgentConfigContent): string {
  return canonicalJson({
    name: config.name,
    model: config.model,
    model_provider: config.model_provider,
    governance_mode: config.governance_mode,
  });
}

export interface AgentConfigInput {
  agent_id: string;
  tenant_id: string;
  version: number;
  /** Leaf hash (hex) of the previous version's record; null for version 1. */
  previous_config_hash: string | null;
  config: AgentConfigContent;
  created_at: string;
}

export function buildAgentConfig(
  input: AgentConfigInput,
  nonce: string,
  authority: Authority,
): SealedRecord<AgentConfig> {
  if ((input.version === 1) !== (input.previous_config_hash === null))
    throw new Error('version 1 has no previous configuration, and every later version has one');
  return seal<AgentConfig>(
    {
      type: 'GOV_AGENT_CONFIG_V1',
      agent_id: input.agent_id,
      tenant_id: input.tenant_id,
      version: input.version,
      previous_config_hash: input.previous_config_hash,
      config_commitment: commitment(nonce, configCommitmentText(input.config)),
      governance_mode: input.config.governance_mode,
      created_at: input.created_at,
      node_id: authority.nodeId,
    },
    authority.privateKey,
  );
}

// ------------------------------------------------------------------------------------------ passport

export interface AgentPassportInput {
  agent_id: string;
  /** The owner's user id (`usr_…`): committed to, never published (nor is the email). */
  owner: string;
  tenant_id: string;
  created_at: string;
  /** Leaf hash (hex) of configuration version 1. */
  config_hash: string;
}

/**
 * The passport; its leaf hash is the agent's `passport_id` (written `sha256:<hex>` in the API).
 * `ownerNonce` (32 random bytes, kept in the private event) opens `owner_commitment` with the owner's
 * user id: the owner can show the agent is theirs, nobody else can test a guessed email against it.
 */
export function buildAgentPassport(
  input: AgentPassportInput,
  ownerNonce: string,
  authority: Authority,
): SealedRecord<AgentPassport> {
  return seal<AgentPassport>(
    {
      type: 'GOV_AGENT_PASSPORT_V1',
      agent_id: input.agent_id,
      owner_commitment: commitment(ownerNonce, input.owner),
      tenant_id: input.tenant_id,
      created_at: input.created_at,
      config_hash: input.config_hash,
      node_id: authority.nodeId,
    },
    authority.privateKey,
  );
}

// ------------------------------------------------------------------------------------------ action

export interface AgentActionInput {
  agent_id: string;
  tenant_id: string;
  action_type: ActionType;
  verdict: Verdict;
  would_block: boolean;
  /** G1 to G5 in order; a reason, when given, is dropped (it stays in the private event). */
  gates: readonly { gate: GateName; passed: boolean }[];
  content: string;
  principal: Pick<Principal, 'kind' | 'id'>;
  /** For a review decision: the leaf hash (hex) of the escalated action's record. */
  resolves?: string | null;
  decided_at: string;
}

/** The principal's canonical JSON: the text its commitment covers. */
export function principalCommitmentText(principal: Pick<Principal, 'kind' | 'id'>): string {
  return canonicalJson({ kind: principal.kind, id: principal.id });
}

/**
 * The action's record. Two nonces, each 32 random bytes kept in the private event: one for the
 * content (the owner opens it with the content), one for the principal (opening the content must not
 * let anyone test guesses of who acted).
 */
export function buildAgentAction(
  input: AgentActionInput,
  nonces: { content: string; principal: string },
  authority: Authority,
): SealedRecord<AgentAction> {
  const order = input.gates.map((gate) => gate.gate).join(',');
  if (order !== 'G1,G2,G3,G4,G5')
    throw new Error(`an action record needs the gates G1 to G5 in order, not ${order}`);
  return seal<AgentAction>(
    {
      type: 'GOV_AGENT_ACTION_V1',
      agent_id: input.agent_id,
      tenant_id: input.tenant_id,
      action_type: input.action_type,
      verdict: input.verdict,
      would_block: input.would_block,
      gates: input.gates.map((gate) => ({ gate: gate.gate, passed: gate.passed })) as AgentAction['gates'],
      content_commitment: commitment(nonces.content, input.content),
      principal_commitment: commitment(nonces.principal, principalCommitmentText(input.principal)),
      resolves: input.resolves ?? null,
      decided_at: input.decided_at,
      node_id: authority.nodeId,
    },
    authority.privateKey,
  );
}

// ------------------------------------------------------------------------------------------ sealing

function seal<R extends PlatformRecord>(
  unsigned: Omit<R, 'signature'>,
  privateKey: KeyObject,
): SealedRecord<R> {
  const record = { ...unsigned, signature: signRecord(unsigned, privateKey) } as R;
  return { record, leafHash: toHex(leafHashOfRecord(record)) };
}

/** The RFC 9162 leaf hash (hex) of a signed record, as the log holds it. */
export function platformLeafHash(record: PlatformRecord): string {
  return toHex(leafHashOfRecord(record));
}

/**
 * Whether a record is signed by the given node key: the signature verifies over the record without it,
 * and `node_id` is that key's id. A reason when not.
 */
export function verifyPlatformRecord(
  record: PlatformRecord,
  publicKey: KeyObject,
): { ok: true } | { ok: false; problem: string } {
  if (record.node_id !== authorityNodeIdOf(publicKey))
    return { ok: false, problem: `node_id ${record.node_id} is not the id of the given key` };
  if (!verifyRecord(without(record, 'signature'), record.signature, publicKey))
    return { ok: false, problem: 'the signature does not verify over the record without it' };
  return { ok: true };
}
