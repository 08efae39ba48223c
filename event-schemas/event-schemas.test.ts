import { execFileSync } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { SqliteEventStore } from '../adapters/sqlite/event-store';
import { hex, validBody } from '../domain/test-fixtures';
import { collect } from '../ports/contract/event-store.contract';
import { EventSchemaError, ValidatingEventStore, validateCommand, validateEventData } from '.';
import { commandSchemas, eventSchemas } from './schemas';

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

  it('every schema is JSON Schema 2020-12 with an $id and a title', () => {
    for (const schema of [...Object.values(commandSchemas), ...Object.values(eventSchemas)]) {
      expect(schema.$schema).toBe('https://json-schema.org/draft/2020-12/schema');
      expect(schema.$id).toMatch(/^urn:gov:/);
      expect(schema.title).toMatch(/^[A-Z]\w+$/);
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
});
