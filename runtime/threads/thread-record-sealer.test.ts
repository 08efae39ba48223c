import { createPublicKey } from 'node:crypto';
import { authorityNodeIdOf } from '../../domain/governance/envelope';
import { ed25519Keys } from '../../domain/governance/test-fixtures';
import { type AgentActionInput, buildAgentAction, verifyPlatformRecord } from '../../domain/platform/records';
import { RecordSealThread } from './thread-record-sealer';

const GATES = ['G1', 'G2', 'G3', 'G4', 'G5'].map((gate) => ({
  gate,
  passed: true,
})) as AgentActionInput['gates'];

function input(i: number): AgentActionInput {
  return {
    agent_id: `svc_${'a'.repeat(26)}`,
    tenant_id: `ten_${'1'.repeat(24)}`,
    action_type: 'chat_message',
    verdict: 'ADMIT',
    would_block: false,
    gates: GATES,
    content: `message ${i}`,
    principal: { kind: 'user', id: `usr_${'2'.repeat(24)}` },
    decided_at: '2026-11-27T10:00:00.000Z',
  };
}

const nonces = (i: number) => ({ content: i.toString(16).padStart(64, '0'), principal: 'f'.repeat(64) });

describe('governed actions’ records on the record sealing thread', () => {
  const [authorityKey] = ed25519Keys(1) as [ReturnType<typeof ed25519Keys>[number]];
  const publicKey = createPublicKey(authorityKey);
  const authority = { privateKey: authorityKey, nodeId: authorityNodeIdOf(publicKey) };
  let thread: RecordSealThread;

  beforeAll(() => {
    thread = RecordSealThread.start(authorityKey);
  });
  afterAll(async () => {
    await thread.close();
  });

  it('given 100 concurrent records, when sealed on the thread, then each is byte for byte the inline one, signed by the node key', async () => {
    const threaded = await Promise.all(
      Array.from({ length: 100 }, (_, i) => thread.seal(input(i), nonces(i))),
    );
    threaded.forEach((sealed, i) => {
      expect(sealed).toEqual(buildAgentAction(input(i), nonces(i), authority));
      expect(verifyPlatformRecord(sealed.record, publicKey)).toEqual({ ok: true });
    });
    expect(new Set(threaded.map((sealed) => sealed.leafHash)).size).toBe(100);
  });

  it('given an input the builder refuses, then that record fails with its reason and the thread goes on', async () => {
    await expect(thread.seal({ ...input(0), gates: GATES.slice(0, 4) }, nonces(0))).rejects.toThrow(
      /gates G1 to G5 in order/,
    );
    await expect(thread.seal(input(1), nonces(1))).resolves.toEqual(
      buildAgentAction(input(1), nonces(1), authority),
    );
  });

  it('given the thread closed, then a record is refused', async () => {
    const closed = RecordSealThread.start(authorityKey);
    await closed.close();
    await expect(closed.seal(input(0), nonces(0))).rejects.toThrow(/closed/);
  });
});
