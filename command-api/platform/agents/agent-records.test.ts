/**
 * The config chain check behind GET .../version-health: a chain made by the deciders verifies; each
 * kind of tampering (record, signature, config, link, order, another key) is named.
 */
import { generateKeyPairSync } from 'node:crypto';
import { authorityNodeIdOf } from '../../../domain/governance/envelope';
import { commitment, configCommitmentText } from '../../../domain/platform/records';
import type { AgentSettings } from '../../../event-schemas';
import { decideCreateAgent, decideUpdateAgent, type LeafContext } from './agent-commands';
import { configChainProblems, nodeRecordSealer, type StoredConfigVersion } from './agent-records';
import { type AgentState, agentAggregate } from './agent-state';

const node = generateKeyPairSync('ed25519');
const other = generateKeyPairSync('ed25519');
const NOW = new Date('2026-03-01T10:00:00.000Z');

function chain(sealWith = node): StoredConfigVersion[] {
  const context = (nonce: string): LeafContext => ({
    now: NOW,
    correlationId: 'c',
    log: 'shared',
    seal: nodeRecordSealer({
      privateKey: sealWith.privateKey,
      nodeId: authorityNodeIdOf(sealWith.publicKey),
    }),
    nonce,
  });
  let state: AgentState = agentAggregate.initial();
  const versions: StoredConfigVersion[] = [];
  const apply = (events: ReturnType<typeof decideCreateAgent>['events']) => {
    for (const event of events) {
      state = agentAggregate.evolve(state, event);
      if (event.type === 'AgentConfigVersioned') versions.push(event.data);
    }
  };
  apply(
    decideCreateAgent(
      state,
      {
        agentId: `svc_${'a'.repeat(26)}`,
        ownerId: `usr_${'1'.repeat(24)}`,
        tenantId: `ten_${'2'.repeat(24)}`,
        sandboxSessionId: `sbx_${'3'.repeat(24)}`,
        ownerNonce: 'b'.repeat(64),
        body: {},
      },
      context('1'.repeat(64)),
    ).events,
  );
  apply(decideUpdateAgent(state, { model: 'm2' }, context('2'.repeat(64))).events);
  apply(decideUpdateAgent(state, { model: 'm3' }, context('3'.repeat(64))).events);
  return versions;
}

describe('configChainProblems', () => {
  it('given the versions as the deciders made them, then none', () => {
    expect(configChainProblems(chain(), [node.publicKey])).toEqual([]);
  });

  it('given a record changed after signing, then its leaf hash and signature fail', () => {
    const versions = chain();
    versions[1] = { ...versions[1]!, record: { ...versions[1]!.record, version: 7 } };
    expect(configChainProblems(versions, [node.publicKey])).toEqual([
      'config version 2: its record does not hash to its leaf hash',
      "config version 2: its signature does not verify with the node's keys",
    ]);
  });

  it('given a config changed in the store, then its commitment fails', () => {
    const versions = chain();
    const config: AgentSettings = { ...versions[2]!.config, governance_mode: 'monitor' };
    versions[2] = { ...versions[2]!, config };
    expect(commitment(versions[2]!.nonce, configCommitmentText(config))).not.toBe(
      versions[2]!.record.config_commitment,
    );
    expect(configChainProblems(versions, [node.publicKey])).toEqual([
      'config version 3: its commitment does not match the stored config',
    ]);
  });

  it('given a version left out, then the sequence and the link fail', () => {
    const versions = chain();
    versions.splice(1, 1);
    expect(configChainProblems(versions, [node.publicKey])).toEqual([
      'config version 3 is out of sequence (expected 2)',
      'config version 3: it does not link to the leaf hash of version 2',
    ]);
  });

  it('given records signed by another key, then every signature fails; with that key known too, none', () => {
    const versions = chain(other);
    expect(configChainProblems(versions, [node.publicKey])).toHaveLength(3);
    expect(configChainProblems(versions, [node.publicKey, other.publicKey])).toEqual([]);
  });
});
