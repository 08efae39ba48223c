import { generateKeyPairSync, randomUUID } from 'node:crypto';
import { authorityNodeIdOf } from '../domain/governance/envelope';
import { signRecord, without } from '../domain/governance/signing';
import { DEFAULT_AGENT_POLICY, evaluateActionGates } from '../domain/platform/action-gates';
import { newAgentId, newNonce, userIdOfEmail } from '../domain/platform/ids';
import {
  buildAgentAction,
  buildAgentConfig,
  buildAgentPassport,
  platformLeafHash,
} from '../domain/platform/records';
import { decideVerdict } from '../domain/platform/verdict';
import type { AgentActionDecided, AgentConfigVersioned, AgentPassportIssued } from '../event-schemas';
import { toHex } from '../merkle-core';
import type { RecordedEvent } from '../ports/event-store';
import { checkEvent } from './event-checks';
import { rawRowOf } from './event-facts';
import { SyntheticLog } from './synthetic-log';
import { type AuditTrust, prepareTrust } from './trust';

const log = new SyntheticLog();
const authority = log.authority;
const tenantId = `ten_${'4'.repeat(24)}`;
const agentId = newAgentId();
const owner = userIdOfEmail('ada@example.com');
const at = '2026-11-27T10:00:00.000Z';

let position = 100;
function recorded<T>(type: string, data: T): RecordedEvent<T> {
  position += 1;
  return {
    id: randomUUID(),
    type,
    stream: `agent-${agentId}`,
    revision: 0,
    position,
    recorded_at: at,
    tenant_id: tenantId,
    correlation_id: 'c',
    causation_id: null,
    schema_version: 1,
    data,
  };
}

const config = {
  name: 'Ada',
  model: 'offline',
  model_provider: 'offline',
  governance_mode: 'enforce' as const,
};
const configNonce = newNonce();
const v1 = buildAgentConfig(
  { agent_id: agentId, tenant_id: tenantId, version: 1, previous_config_hash: null, config, created_at: at },
  configNonce,
  authority,
);
const configEvent = recorded<AgentConfigVersioned>('AgentConfigVersioned', {
  agent_id: agentId,
  tenant_id: tenantId,
  version: 1,
  config,
  config_hash: 'a'.repeat(64),
  previous_config_hash: null,
  cause: 'create',
  record: v1.record,
  leaf_hash: v1.leafHash,
  log: 'shared',
  nonce: configNonce,
  versioned_at: at,
});
const ownerNonce = newNonce();
const passport = buildAgentPassport(
  { agent_id: agentId, owner, tenant_id: tenantId, created_at: at, config_hash: v1.leafHash },
  ownerNonce,
  authority,
);
const passportEvent = recorded<AgentPassportIssued>('AgentPassportIssued', {
  agent_id: agentId,
  tenant_id: tenantId,
  record: passport.record,
  leaf_hash: passport.leafHash,
  log: 'shared',
  owner_nonce: ownerNonce,
  issued_at: at,
});

const content = 'send the weekly report';
const principal = { kind: 'user' as const, id: owner };
const evaluation = evaluateActionGates(
  { type: 'chat_message', content, content_is_data: false, evidence_class: 'HOOKED', principal },
  DEFAULT_AGENT_POLICY,
);
const verdict = decideVerdict(evaluation, 'enforce');
const nonces = { content: newNonce(), principal: newNonce() };
const action = buildAgentAction(
  {
    agent_id: agentId,
    tenant_id: tenantId,
    action_type: 'chat_message',
    verdict: verdict.verdict,
    would_block: verdict.would_block,
    gates: evaluation.gates,
    content,
    principal,
    decided_at: at,
  },
  nonces,
  authority,
);
const actionEvent = recorded<AgentActionDecided>('AgentActionDecided', {
  agent_id: agentId,
  tenant_id: tenantId,
  record: action.record,
  leaf_hash: action.leafHash,
  log: 'shared',
  action_type: 'chat_message',
  verdict: verdict.verdict,
  would_block: verdict.would_block,
  gates: evaluation.gates as AgentActionDecided['gates'],
  content,
  content_nonce: nonces.content,
  principal,
  principal_nonce: nonces.principal,
  evidence_class: 'HOOKED',
  decided_at: at,
});

async function verdictOf(event: RecordedEvent, trust: AuditTrust = log.trust) {
  return checkEvent(rawRowOf(event), prepareTrust(trust));
}

async function checksOf(event: RecordedEvent, trust: AuditTrust = log.trust): Promise<string[]> {
  return (await verdictOf(event, trust)).findings.map((f) => f.check);
}

function altered<T>(event: RecordedEvent<T>, change: (copy: RecordedEvent<T>) => void): RecordedEvent<T> {
  const copy = structuredClone(event);
  change(copy);
  return copy;
}

describe('the checks of the agent platform leaves', () => {
  it.each([
    ['AgentConfigVersioned', configEvent],
    ['AgentPassportIssued', passportEvent],
    ['AgentActionDecided', actionEvent],
  ] as const)(
    'given a %s as the platform writes it, when checked, then nothing is found, its leaf hash comes out and one signature is checked',
    async (_type, event) => {
      const { findings, facts, signatures } = await verdictOf(event as RecordedEvent);
      expect(findings).toEqual([]);
      expect(toHex(facts.leaf!.hash!)).toBe((event.data as { leaf_hash: string }).leaf_hash);
      expect(signatures).toBe(1);
    },
  );

  it('given an action record whose verdict was changed after signing, when checked, then its leaf hash and its node signature fail', async () => {
    const changed = altered(actionEvent, (e) => {
      e.data.record.verdict = 'ADMIT';
      e.data.record.would_block = !e.data.record.would_block;
    });
    expect(await checksOf(changed)).toEqual(['leaf-hash-mismatch', 'record-signature']);
  });

  it('given a config record changed and its leaf hash recomputed (a forger without the node key), when checked, then the signature still fails', async () => {
    const changed = altered(configEvent, (e) => {
      e.data.record.governance_mode = 'monitor';
      e.data.leaf_hash = platformLeafHash(e.data.record);
    });
    expect(await checksOf(changed)).toEqual(['record-signature']);
  });

  it('given a passport re-signed by a key the trust does not know, when checked, then the authority is unknown', async () => {
    const stranger = generateKeyPairSync('ed25519');
    const changed = altered(passportEvent, (e) => {
      const unsigned = {
        ...without(e.data.record, 'signature'),
        node_id: authorityNodeIdOf(stranger.publicKey),
      };
      e.data.record = { ...unsigned, signature: signRecord(unsigned, stranger.privateKey) };
      e.data.leaf_hash = platformLeafHash(e.data.record);
    });
    expect(await checksOf(changed)).toEqual(['record-authority-unknown']);
  });

  it('given an action of another tenant or agent than its event names, when checked, then the mismatch is found', async () => {
    const otherTenant = altered(actionEvent, (e) => {
      e.data.tenant_id = `ten_${'5'.repeat(24)}`;
    });
    expect(await checksOf(otherTenant)).toEqual(['tenant-mismatch']);
    const otherAgent = altered(actionEvent, (e) => {
      e.data.agent_id = newAgentId();
    });
    expect(await checksOf(otherAgent)).toEqual(['subject-mismatch']);
  });

  it('given a stored leaf hash altered, when checked, then the leaf hash is the recomputed one and the mismatch is found', async () => {
    const changed = altered(passportEvent, (e) => {
      e.data.leaf_hash = 'f'.repeat(64);
    });
    const { findings, facts } = await verdictOf(changed);
    expect(findings.map((f) => f.check)).toEqual(['leaf-hash-mismatch']);
    expect(toHex(facts.leaf!.hash!)).toBe(passport.leafHash);
  });
});
