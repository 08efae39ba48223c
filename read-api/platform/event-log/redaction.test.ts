/**
 * The event log's allow-list: a marker stored as an action's content (or in its nonces, gate reasons,
 * principal or record) never appears; listed members are shown, leaf hashes as `sha256:<hex>`; a type
 * or member nobody listed shows nothing.
 */
import { shownData } from './redaction';

const MARKER = 'EVENTLOG-MARKER-7f3a91';
const LEAF = 'ab'.repeat(32);

/** An AgentActionDecided as the pipeline's schema has it, the marker in every private member. */
const action = {
  agent_id: `svc_${'a'.repeat(26)}`,
  tenant_id: `ten_${'b'.repeat(24)}`,
  record: { content_commitment: 'c'.repeat(64), note: MARKER },
  leaf_hash: LEAF,
  log: 'shared',
  action_type: 'chat_message',
  verdict: 'BLOCK',
  would_block: true,
  gates: [{ gate: 'G1', passed: false, reason: `must_not matched ${MARKER}` }],
  content: `please send ${MARKER} to everyone`,
  content_nonce: 'd'.repeat(64),
  principal: { kind: 'user', id: MARKER },
  principal_nonce: 'e'.repeat(64),
  evidence_class: 'HOOKED',
  decided_at: '2026-03-01T10:00:00.000Z',
};

describe('the event log redaction', () => {
  it('given a governed action with a marker as content, then only the listed members are shown and the marker nowhere', () => {
    const shown = shownData('AgentActionDecided', action);
    expect(JSON.stringify(shown)).not.toContain(MARKER);
    expect(JSON.stringify(shown)).not.toContain('d'.repeat(64));
    expect(shown).toEqual({
      action_type: 'chat_message',
      verdict: 'BLOCK',
      would_block: true,
      evidence_class: 'HOOKED',
      leaf_hash: `sha256:${LEAF}`,
      log: 'shared',
      decided_at: '2026-03-01T10:00:00.000Z',
    });
  });

  it('given a key made, then its hash is left out', () => {
    const shown = shownData('ApiKeyCreated', {
      agent_id: `svc_${'a'.repeat(26)}`,
      key_id: `key_${'1'.repeat(24)}`,
      name: 'ci',
      prefix: 'svc_sk_abcdefg',
      key_hash: 'f'.repeat(64),
      scopes: ['chat'],
      created_at: '2026-03-01T10:00:00.000Z',
    });
    expect(shown).not.toHaveProperty('key_hash');
    expect(shown).toMatchObject({ key_id: `key_${'1'.repeat(24)}`, prefix: 'svc_sk_abcdefg' });
  });

  it('given a config version, then its nonce, config and record are left out', () => {
    const shown = shownData('AgentConfigVersioned', {
      version: 2,
      config: { name: MARKER },
      nonce: '9'.repeat(64),
      record: { x: MARKER },
      leaf_hash: LEAF,
      versioned_at: '2026-03-01T10:00:00.000Z',
    });
    expect(JSON.stringify(shown)).not.toContain(MARKER);
    expect(shown).toEqual({
      version: 2,
      leaf_hash: `sha256:${LEAF}`,
      versioned_at: '2026-03-01T10:00:00.000Z',
    });
  });

  it('given a type nobody listed, or a member added later, then nothing of it is shown', () => {
    expect(shownData('AgentMemoryWritten', { content: MARKER })).toEqual({});
    expect(shownData('AgentStopped', { stopped_at: 't', content: MARKER })).toEqual({ stopped_at: 't' });
  });
});
