import { execFileSync } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { SqliteEventStore } from '../adapters/sqlite/event-store';
import { hex, validBody } from '../domain/governance/test-fixtures';
import { collect } from '../ports/contract/event-store.contract';
import {
  type EventPayloads,
  EventSchemaError,
  type GovernanceEvent,
  isWebhookEventName,
  ValidatingEventStore,
  validateCommand,
  validateEventData,
  validateWebhookPayload,
} from '.';
import { commandSchemas, eventSchemas, webhookSchemas } from './schemas';

const validEvidence = validBody;

describe('event schemas', () => {
  it('the generated TypeScript types are in step with the JSON Schemas (run `npm run schemas` if this fails)', () => {
    // In a child process: the generator loads prettier, whose dynamic import Jest's VM cannot run.
    const root = path.resolve(__dirname, '..');
    const fresh = execFileSync(
      path.join(root, 'node_modules/.bin/tsx'),
      ['event-schemas/generate-types.ts', '--print'],
      {
        cwd: root,
        encoding: 'utf8',
      },
    );
    expect(fs.readFileSync(path.join(__dirname, 'generated/types.ts'), 'utf8')).toBe(fresh);
  });

  it('the generated event union has one member per event schema, each type tied to its payload', () => {
    const source = fs.readFileSync(path.join(__dirname, 'generated/types.ts'), 'utf8');
    const union = source.slice(source.indexOf('export type GovernanceEvent ='));
    const members = [...union.matchAll(/\| \{ type: '(\w+)'; data: (\w+) \}/g)].map(([, type, data]) => [
      type,
      data,
    ]);
    expect(members).toEqual(Object.entries(eventSchemas).map(([type, schema]) => [type, schema.title]));
    // @ts-expect-error a payload under another event's type does not type-check
    const mismatched: GovernanceEvent = { type: 'WebhookRemoved', data: {} as EventPayloads['GateFailed'] };
    expect(mismatched.type).toBe('WebhookRemoved');
  });

  it('every schema is JSON Schema 2020-12 with an $id and a title', () => {
    const all = [
      ...Object.values(commandSchemas),
      ...Object.values(eventSchemas),
      ...Object.values(webhookSchemas),
    ];
    for (const schema of all) {
      expect(schema.$schema).toBe('https://json-schema.org/draft/2020-12/schema');
      expect(schema.$id).toMatch(/^urn:gov:/);
      expect(schema.title).toMatch(/^[A-Z]\w+$/);
    }
    for (const [name, schema] of Object.entries(webhookSchemas)) {
      expect(schema.$id).toBe(`urn:gov:webhook:${name}`);
      expect(schema.description).toEqual(expect.any(String));
    }
  });

  describe('command bodies at the edge', () => {
    it('accepts a valid evidence submission', () => {
      expect(validateCommand('submit-evidence', validEvidence())).toEqual({
        ok: true,
        value: validEvidence(),
      });
    });

    it('names every offending field with a JSON pointer and a reason', () => {
      const body = validEvidence() as Record<string, unknown> & ReturnType<typeof validEvidence>;
      body.evidence.evaluation_trace_hash = 'not-a-hash';
      (body.gate_results.G1 as Record<string, unknown>).bootstrap_iterations = 'many';
      delete (body as Partial<typeof body>).state_after_hash;
      body.surprise = 1;
      const result = validateCommand('submit-evidence', body);
      expect(result.ok).toBe(false);
      if (result.ok) return;
      expect(result.problems).toEqual(
        expect.arrayContaining([
          {
            pointer: '/evidence/evaluation_trace_hash',
            reason: 'must be a SHA-256 digest: 64 lowercase hex characters',
          },
          { pointer: '/gate_results/G1/bootstrap_iterations', reason: 'must be an integer' },
          { pointer: '/state_after_hash', reason: 'is required' },
          { pointer: '/surprise', reason: 'is not a known field; remove it' },
        ]),
      );
      expect(result.problems).toHaveLength(4);
    });

    it('explains a replay_seed that is neither hex nor a URI in one problem', () => {
      const result = validateCommand('submit-evidence', {
        ...validEvidence(),
        replay_seed: 'not hex, no scheme',
      });
      expect(result).toEqual({
        ok: false,
        problems: [
          {
            pointer: '/replay_seed',
            reason: 'must be a hex string or a URI from which the evaluation can be replayed',
          },
        ],
      });
    });

    it('rejects a registration without a valid email', () => {
      expect(validateCommand('register-tenant', { email: 'nope', mode: 'prod' })).toEqual({
        ok: false,
        problems: [
          { pointer: '/email', reason: 'must be a valid email' },
          { pointer: '/mode', reason: 'must be one of live, test' },
        ],
      });
    });
  });

  describe('events before append', () => {
    const registered = () => ({
      tenant_id: `ten_${'0'.repeat(24)}`,
      node_id: `node_${'1'.repeat(24)}`,
      email: 'a@example.com',
      mode: 'live',
      tier: 'L1',
      key_id: '0123456789abcdef',
      key_hash: hex('a'),
      registered_at: '2026-11-21T10:00:00.000Z',
    });

    it('validates event payloads by type', () => {
      expect(validateEventData('TenantRegistered', registered()).ok).toBe(true);
      expect(validateEventData('TenantRegistered', { ...registered(), tier: 'L9' }).ok).toBe(false);
    });

    it('given a validating store, when an invalid or unknown event is appended, then nothing is stored', async () => {
      const store = new ValidatingEventStore(new SqliteEventStore({ file: ':memory:' }));
      const meta = { tenant_id: 't', correlation_id: randomUUID() };
      await expect(
        store.append('tenant-x', [
          { type: 'TenantRegistered', data: registered(), ...meta },
          { type: 'TenantRegistered', data: { ...registered(), key_hash: 'plain-secret' }, ...meta },
        ]),
      ).rejects.toThrow(EventSchemaError);
      await expect(store.append('tenant-x', [{ type: 'NoSuchEvent', data: {}, ...meta }])).rejects.toThrow(
        /not a known event type/,
      );
      expect(await collect(store.readAll())).toEqual([]);
      await store.append('tenant-x', [{ type: 'TenantRegistered', data: registered(), ...meta }]);
      expect(await collect(store.readAll())).toHaveLength(1);
      await store.close();
    });
  });

  describe('webhooks', () => {
    const tenantId = `ten_${'0'.repeat(24)}`;
    const webhookId = `wh_${'a'.repeat(24)}`;
    const eventId = `evt_${'b'.repeat(32)}`;
    const names = Object.keys(webhookSchemas);

    it('lists the same eight webhook event names wherever events are named', () => {
      expect(names).toEqual([
        'leaf_admitted',
        'gate_fail',
        'compliance_report_ready',
        'execution_trace_admitted',
        'variance_recorded',
        'governance_breach',
        'chain_depth_milestone',
        'observables_alert',
      ]);
      expect(eventSchemas.WebhookRegistered.properties.events.items.enum).toEqual(names);
      expect(commandSchemas['register-webhook'].properties.events.items.enum).toEqual(names);
      expect(names.every(isWebhookEventName)).toBe(true);
      expect(isWebhookEventName('leaf_minted')).toBe(false);
    });

    it('validates the webhook events by type', () => {
      const registered = {
        tenant_id: tenantId,
        webhook_id: webhookId,
        url: 'https://hooks.example/gov',
        events: ['leaf_admitted', 'gate_fail'],
        secret_sealed: 'v1.sealed',
        secret_generated: true,
        created_at: '2026-11-21T10:00:00.000Z',
      };
      expect(validateEventData('WebhookRegistered', registered).ok).toBe(true);
      expect(validateEventData('WebhookRegistered', { ...registered, events: [] }).ok).toBe(false);
      expect(
        validateEventData('WebhookRegistered', { ...registered, events: ['gate_fail', 'gate_fail'] }).ok,
      ).toBe(false);
      expect(validateEventData('WebhookRegistered', { ...registered, webhook_id: 'wh_1' }).ok).toBe(false);
      expect(
        validateEventData('WebhookRemoved', {
          tenant_id: tenantId,
          webhook_id: webhookId,
          removed_at: '2026-11-21T10:00:00.000Z',
        }).ok,
      ).toBe(true);
      const redelivery = {
        tenant_id: tenantId,
        webhook_id: webhookId,
        delivery_id: `${webhookId}.${eventId}`,
        requested_at: '2026-11-21T10:00:00.000Z',
      };
      expect(validateEventData('WebhookRedeliveryRequested', redelivery).ok).toBe(true);
      expect(
        validateEventData('WebhookRedeliveryRequested', {
          ...redelivery,
          delivery_id: `${webhookId}.${eventId}:r2`,
        }).ok,
      ).toBe(true);
      expect(validateEventData('WebhookRedeliveryRequested', { ...redelivery, delivery_id: 'x' }).ok).toBe(
        false,
      );
    });

    it('accepts a webhook registration body and names what is wrong with a bad one', () => {
      expect(
        validateCommand('register-webhook', { url: 'https://hooks.example/gov', events: ['gate_fail'] }).ok,
      ).toBe(true);
      const result = validateCommand('register-webhook', {
        url: 'ftp://hooks.example/gov',
        events: ['leaf_minted'],
        secret: 'short',
      });
      expect(result.ok).toBe(false);
      if (result.ok) return;
      expect(result.problems.map((p) => p.pointer).sort()).toEqual(['/events/0', '/secret', '/url']);
    });

    it('accepts a full body or its trimmed summary, and not a mix of the two', () => {
      const full = {
        type: 'gate_fail',
        event_id: eventId,
        tenant_id: tenantId,
        subject_id: 'model-7',
        gates_failed: ['G1'],
        details: { G1: 'confidence_interval_lower 0.5 is below 0.8' },
        action: 'ACTION_BLOCKED',
        failed_at: '2026-11-21T10:00:00.000Z',
      };
      const { details: _, ...small } = full;
      const trimmed = {
        ...small,
        trimmed: true,
        original_bytes: 200_000,
        url: 'https://gov.example/governance/status?subject_id=model-7',
      };
      expect(validateWebhookPayload('gate_fail', full)).toEqual({ ok: true, value: full });
      expect(validateWebhookPayload('gate_fail', trimmed)).toEqual({ ok: true, value: trimmed });
      expect(validateWebhookPayload('gate_fail', { ...full, trimmed: true }).ok).toBe(false);
      expect(validateWebhookPayload('gate_fail', { ...trimmed, original_bytes: 1000 }).ok).toBe(false);
      expect(validateWebhookPayload('gate_fail', { ...full, type: 'leaf_admitted' }).ok).toBe(false);
      expect(validateWebhookPayload('leaf_admitted', full).ok).toBe(false);
    });
  });
});
