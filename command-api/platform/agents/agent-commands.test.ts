/**
 * The agent aggregate, given/when/then: lifecycle (create, start, stop with a checkpoint, mode,
 * delete), config versions (PATCH, rollback, restore: each change one signed version chained to the
 * one before, no change no version), and the refusals, which append nothing.
 */
import { generateKeyPairSync } from 'node:crypto';
import { authorityNodeIdOf } from '../../../domain/governance/envelope';
import { verifyRecord, without } from '../../../domain/governance/signing';
import { leafHashOfRecord } from '../../../domain/log/record';
import type { AgentSettings } from '../../../event-schemas';
import { validateEventData } from '../../../event-schemas';
import { deciderSpecification, refusedWith } from '../../engine/decider-specification';
import {
  type AgentDecision,
  configHash,
  decideChangeMode,
  decideCreateAgent,
  decideDeleteAgent,
  decideRestore,
  decideRollback,
  decideStart,
  decideStop,
  decideUpdateAgent,
  type LeafContext,
} from './agent-commands';
import { nodeRecordSealer } from './agent-records';
import { type AgentEvent, type AgentState, agentAggregate } from './agent-state';

const AGENT = `svc_${'a'.repeat(26)}`;
const OWNER = `usr_${'1'.repeat(24)}`;
const TENANT = `ten_${'2'.repeat(24)}`;
const SESSION_1 = `sbx_${'3'.repeat(24)}`;
const SESSION_2 = `sbx_${'4'.repeat(24)}`;
const CHECKPOINT = `chk_${'5'.repeat(24)}`;
const NONCE = 'n'.repeat(0) + '6'.repeat(64);
const NOW = new Date('2026-03-01T10:00:00.000Z');

const keys = generateKeyPairSync('ed25519');
const seal = nodeRecordSealer({ privateKey: keys.privateKey, nodeId: authorityNodeIdOf(keys.publicKey) });
const context: LeafContext = { now: NOW, correlationId: 'c', log: 'shared', seal, nonce: NONCE };

type Command =
  | { type: 'create'; body?: Record<string, string> }
  | { type: 'update'; body: Record<string, string> }
  | { type: 'start'; session: string }
  | { type: 'stop' }
  | { type: 'mode'; mode: 'chat' | 'autonomous' }
  | { type: 'rollback'; version: number }
  | { type: 'restore'; checkpoint: string }
  | { type: 'delete' };

function decide(state: AgentState, command: Command): AgentDecision<unknown> {
  switch (command.type) {
    case 'create':
      return decideCreateAgent(
        state,
        {
          agentId: AGENT,
          ownerId: OWNER,
          tenantId: TENANT,
          sandboxSessionId: SESSION_1,
          ownerNonce: 'b'.repeat(64),
          body: command.body ?? {},
        },
        context,
      );
    case 'update':
      return decideUpdateAgent(state, command.body, context);
    case 'start':
      return decideStart(state, command.session, context);
    case 'stop':
      return decideStop(state, CHECKPOINT, context);
    case 'mode':
      return decideChangeMode(state, command.mode, context);
    case 'rollback':
      return decideRollback(state, command.version, context);
    case 'restore':
      return decideRestore(state, command.checkpoint, context);
    case 'delete':
      return decideDeleteAgent(state, OWNER, context);
  }
}

const given = deciderSpecification(agentAggregate, decide);

/** Events as the aggregate would have them after `commands` (each decided on the state before it). */
function history(...commands: Command[]): AgentEvent[] {
  let state = agentAggregate.initial();
  const events: AgentEvent[] = [];
  for (const command of commands) {
    const decision = decide(state, command);
    for (const event of decision.events) {
      state = agentAggregate.evolve(state, event);
      events.push({ type: event.type, data: event.data } as AgentEvent);
    }
  }
  return events;
}

function fold(events: readonly AgentEvent[]): AgentState {
  return events.reduce(agentAggregate.evolve, agentAggregate.initial());
}

const DEFAULTS: AgentSettings = {
  name: 'Agent aaaaaa',
  model: 'offline',
  model_provider: 'offline',
  governance_mode: 'enforce',
};

function versionsOf(events: readonly AgentEvent[]) {
  return events.flatMap((event) => (event.type === 'AgentConfigVersioned' ? [event.data] : []));
}

describe('creating an agent', () => {
  it('given nothing, when it is created, then AgentCreated, config version 1 and the passport, valid against their schemas', () => {
    const events = history({ type: 'create' });
    expect(events.map((event) => event.type)).toEqual([
      'AgentCreated',
      'AgentConfigVersioned',
      'AgentPassportIssued',
    ]);
    for (const event of events)
      expect(validateEventData(event.type, event.data)).toEqual({ ok: true, value: event.data });
    expect(events[0]!.data).toEqual({
      agent_id: AGENT,
      owner_id: OWNER,
      tenant_id: TENANT,
      ...DEFAULTS,
      sandbox_session_id: SESSION_1,
      created_at: NOW.toISOString(),
    });
    const [version] = versionsOf(events);
    expect(version).toMatchObject({
      version: 1,
      config: DEFAULTS,
      config_hash: configHash(DEFAULTS),
      previous_config_hash: null,
      cause: 'create',
      log: 'shared',
      nonce: NONCE,
      agent_id: AGENT,
      tenant_id: TENANT,
    });
  });

  it('then the agent is stopped, in chat mode, at config version 1', () => {
    const state = fold(history({ type: 'create', body: { agent_name: 'Scout', governance_mode: 'review' } }));
    expect(state).toMatchObject({
      exists: true,
      state: 'stopped',
      mode: 'chat',
      config_version: 1,
      config: { ...DEFAULTS, name: 'Scout', governance_mode: 'review' },
    });
  });

  it('then each leaf is signed by the node key, its leaf hash that of its record, and the record holds no config content', () => {
    const events = history({ type: 'create', body: { agent_name: 'secret-marker-name' } });
    for (const event of events) {
      if (event.type !== 'AgentConfigVersioned' && event.type !== 'AgentPassportIssued') continue;
      const record = event.data.record as { signature: string };
      expect(Buffer.from(leafHashOfRecord(record)).toString('hex')).toBe(event.data.leaf_hash);
      expect(verifyRecord(without(record, 'signature'), record.signature, keys.publicKey)).toBe(true);
      expect(JSON.stringify(record)).not.toContain('secret-marker-name');
    }
  });
});

describe('changing the config (PATCH)', () => {
  it('given an agent, when a member changes, then one version 2 chained to version 1', () => {
    const created = history({ type: 'create' });
    const events = history(
      { type: 'create' },
      { type: 'update', body: { model: 'gpt-x', model_provider: 'openai' } },
    );
    const [v1, v2] = versionsOf(events);
    expect(events.slice(created.length).map((event) => event.type)).toEqual(['AgentConfigVersioned']);
    expect(v2).toMatchObject({
      version: 2,
      cause: 'update',
      config: { ...DEFAULTS, model: 'gpt-x', model_provider: 'openai' },
      previous_config_hash: v1!.config_hash,
    });
  });

  it('given an agent, when the PATCH changes nothing, then nothing happens', () => {
    given(history({ type: 'create' }))
      .when({ type: 'update', body: { model: 'offline' } })
      .thenNothingHappened();
  });
});

describe('starting and stopping', () => {
  it('given a stopped agent, when started, then AgentStarted with the new runtime session', () => {
    given(history({ type: 'create' }))
      .when({ type: 'start', session: SESSION_2 })
      .then([
        {
          type: 'AgentStarted',
          data: { agent_id: AGENT, sandbox_session_id: SESSION_2, started_at: NOW.toISOString() },
        },
      ]);
  });

  it('given a running agent, when started, then 409 agent_running', () => {
    given(history({ type: 'create' }, { type: 'start', session: SESSION_2 }))
      .when({ type: 'start', session: SESSION_1 })
      .thenThrows(refusedWith('agent_running', 409));
  });

  it('given a running agent at version 2, when stopped, then AgentStopped and a checkpoint of version 2', () => {
    given(
      history(
        { type: 'create' },
        { type: 'update', body: { agent_name: 'B' } },
        { type: 'start', session: SESSION_2 },
      ),
    )
      .when({ type: 'stop' })
      .then([
        { type: 'AgentStopped', data: { agent_id: AGENT, stopped_at: NOW.toISOString() } },
        {
          type: 'AgentCheckpointCreated',
          data: {
            agent_id: AGENT,
            checkpoint_id: CHECKPOINT,
            config_version: 2,
            profile_version: 0,
            memory_position: 0,
            cause: 'stop',
            created_at: NOW.toISOString(),
          },
        },
      ]);
  });

  it('given a stopped agent, when stopped, then 409 agent_not_running', () => {
    given(history({ type: 'create' }))
      .when({ type: 'stop' })
      .thenThrows(refusedWith('agent_not_running', 409));
  });
});

describe('mode', () => {
  it('given chat mode, when autonomous, then AgentModeChanged; the same mode again changes nothing', () => {
    given(history({ type: 'create' }))
      .when({ type: 'mode', mode: 'autonomous' })
      .then([
        {
          type: 'AgentModeChanged',
          data: { agent_id: AGENT, mode: 'autonomous', changed_at: NOW.toISOString() },
        },
      ]);
    given(history({ type: 'create' }))
      .when({ type: 'mode', mode: 'chat' })
      .thenNothingHappened();
  });
});

describe('rollback and restore', () => {
  const twoVersions = (): Command[] => [
    { type: 'create' },
    { type: 'update', body: { agent_name: 'Second' } },
  ];

  it('given versions 1 and 2, when rolled back to 1, then version 3 equal in content to 1, chained to 2', () => {
    const events = history(...twoVersions(), { type: 'rollback', version: 1 });
    const [v1, v2, v3] = versionsOf(events);
    expect(v3).toMatchObject({
      version: 3,
      cause: 'rollback',
      from_version: 1,
      config: v1!.config,
      config_hash: v1!.config_hash,
      previous_config_hash: v2!.config_hash,
    });
    expect(v3!.leaf_hash).not.toBe(v1!.leaf_hash);
  });

  it('given versions 1 and 2, when rolled back to 2 (in force), then nothing; to 7, then 404 not_found', () => {
    given(history(...twoVersions()))
      .when({ type: 'rollback', version: 2 })
      .thenNothingHappened();
    given(history(...twoVersions()))
      .when({ type: 'rollback', version: 7 })
      .thenThrows(refusedWith('not_found', 404));
  });

  it('given a checkpoint at version 1 and a later change, when restored, then a version equal to 1 and AgentRestored naming it', () => {
    const events = history(
      { type: 'create' },
      { type: 'start', session: SESSION_2 },
      { type: 'stop' },
      { type: 'update', body: { governance_mode: 'monitor' } },
      { type: 'restore', checkpoint: CHECKPOINT },
    );
    const tail = events.slice(-2);
    expect(tail.map((event) => event.type)).toEqual(['AgentConfigVersioned', 'AgentRestored']);
    expect(tail[0]!.data).toMatchObject({ version: 3, cause: 'restore', from_version: 1, config: DEFAULTS });
    expect(tail[1]!.data).toEqual({
      agent_id: AGENT,
      checkpoint_id: CHECKPOINT,
      config_version: 3,
      restored_at: NOW.toISOString(),
    });
  });

  it('given no such checkpoint, when restored, then 404 not_found', () => {
    given(history({ type: 'create' }))
      .when({ type: 'restore', checkpoint: CHECKPOINT })
      .thenThrows(refusedWith('not_found', 404));
  });
});

describe('deleting', () => {
  it('given an agent, when deleted, then AgentDeleted; after it every command is 404 not_found', () => {
    given(history({ type: 'create' }))
      .when({ type: 'delete' })
      .then([
        { type: 'AgentDeleted', data: { agent_id: AGENT, deleted_by: OWNER, deleted_at: NOW.toISOString() } },
      ]);
    const deleted = history({ type: 'create' }, { type: 'delete' });
    const commands: Command[] = [
      { type: 'update', body: { agent_name: 'x' } },
      { type: 'start', session: SESSION_2 },
      { type: 'stop' },
      { type: 'mode', mode: 'autonomous' },
      { type: 'rollback', version: 1 },
      { type: 'restore', checkpoint: CHECKPOINT },
      { type: 'delete' },
    ];
    for (const command of commands) given(deleted).when(command).thenThrows(refusedWith('not_found', 404));
  });

  it('given nothing, when any command but create, then 404 not_found', () => {
    given([]).when({ type: 'start', session: SESSION_2 }).thenThrows(refusedWith('not_found', 404));
  });
});
