/**
 * Acceptance: `audit` over a store written by a real server (every event type present), then over
 * copies of it tampered with directly in SQLite — each fault reported at its position with the right
 * check code — and the `gov audit` command's exit codes.
 */
import fs from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import { writeExport } from '../adapters/ndjson/export-writer';
import { SqliteEventStore } from '../adapters/sqlite/event-store';
import {
  type AuditReport,
  type AuditScope,
  type AuditTrust,
  exportAuditSource,
  runAudit,
  sqliteAuditSource,
  trustFromPublishedKeys,
} from '../audit';
import { timestampExtension } from '../domain/log';
import { fromHex, generateKeyPair, loadSignerKey, type NoteSigner, signCheckpoint } from '../merkle-core';
import { readPublishedKeys } from '../runtime/keys/key-history';
import { runGov } from './support/children';
import {
  type AdmittedEvidence,
  digest,
  failingEvidence,
  startTestServer,
  type TestServer,
  validEvidence,
} from './support/governance-client';
import { tempDir } from './support/temp-dir';
import { unlimitedInSharedLog } from './support/unlimited-tenant';

interface Row {
  position: number;
  id: string;
  stream: string;
  revision: number;
  type: string;
  data: string;
}

interface TreeHead {
  tree_size: number;
  root_hash: string;
  timestamp: string;
  first_leaf_index: number;
  leaf_positions: number[];
  /** A log other than the shared one. */
  log?: string;
}

const COLUMNS = [
  'id',
  'stream',
  'revision',
  'type',
  'recorded_at',
  'tenant_id',
  'correlation_id',
  'causation_id',
  'schema_version',
  'data',
] as const;

describe('gov audit over a store written by a real server', () => {
  let t: TestServer;
  let work: { dir: string; remove(): void };
  let storeFile: string;
  let keysDir: string;
  let trust: AuditTrust;
  let logSigner: NoteSigner;
  let rows: Row[];
  let copies = 0;

  beforeAll(async () => {
    t = await startTestServer('gov-audit', { env: { GOV_WEBHOOK_ALLOW: '127.0.0.1' } });
    const { client } = t;
    const loop = await client.register({ email: 'loop@example.com' });
    const other = await client.register({ email: 'other@example.com' });
    await unlimitedInSharedLog(t.server, loop.tenant_id);
    const authorizations: AdmittedEvidence[] = [];
    for (let i = 0; i < 4; i++)
      authorizations.push(await client.admit(loop.api_key, validEvidence(`agent-${i}`)));
    await client.admit(other.api_key, validEvidence('model-1'));
    expect((await client.submitEvidence(loop.api_key, failingEvidence('agent-9'))).status).toBe(422);
    const executed = await client.post(
      '/governance/execution',
      {
        parent_auth_leaf_hash: authorizations[0]!.leaf_hash,
        outcome: 'DEVIATED',
        executed_payload_hash: digest('run'),
      },
      loop.api_key,
    );
    expect(executed.status).toBe(201);
    await client.admit(loop.api_key, validEvidence('agent-5'));
    expect((await client.post('/api-key/rotate', {}, other.api_key)).status).toBe(200);
    const hook = await client.post<{ webhook_id: string }>(
      '/webhooks',
      { url: 'http://127.0.0.1:9/hook', events: ['gate_fail'] },
      loop.api_key,
    );
    expect(hook.status).toBe(201);
    expect(
      (await client.request('DELETE', `/webhooks/${hook.body.webhook_id}`, { key: loop.api_key })).status,
    ).toBe(200);
    await t.stop();

    storeFile = path.join(t.dataDir, 'events.db');
    keysDir = path.join(t.dataDir, 'keys');
    trust = trustFromPublishedKeys(readPublishedKeys(keysDir));
    logSigner = loadSignerKey(fs.readFileSync(path.join(keysDir, 'log.key'), 'utf8').trim());
    work = tempDir('gov-audit-copies');
    const db = new Database(storeFile, { readonly: true });
    rows = db
      .prepare('SELECT position, id, stream, revision, type, data FROM events ORDER BY position')
      .all() as Row[];
    db.close();
  });

  afterAll(async () => {
    work?.remove();
    await t?.dispose();
  });

  // ---- helpers ------------------------------------------------------------------------------------

  /** A fresh copy of the server's store file, optionally edited in SQLite. */
  const copyOfStore = (edit?: (db: Database.Database) => void): string => {
    const file = path.join(work.dir, `copy-${++copies}.db`);
    fs.copyFileSync(storeFile, file);
    if (edit) {
      const db = new Database(file);
      db.transaction(() => edit(db))();
      db.close();
    }
    return file;
  };

  const audit = (
    file: string,
    options: { trust?: AuditTrust; workers?: number; checks?: AuditScope } = {},
  ): Promise<AuditReport> =>
    runAudit(sqliteAuditSource(file), {
      trust: options.trust ?? trust,
      workers: options.workers ?? 0,
      checks: options.checks ?? 'all',
    });

  /** [position, check] of every discrepancy, for exact comparisons. */
  const found = (report: AuditReport) => report.discrepancies.map((d) => [d.position, d.check]);

  const ofType = (type: string) => rows.filter((r) => r.type === type);
  const headOf = (row: Row) => JSON.parse(row.data) as TreeHead;
  /** The TreeHeadSigned that integrates the admission at `position`. */
  const headIntegrating = (position: number) =>
    ofType('TreeHeadSigned').find((r) => headOf(r).leaf_positions.includes(position))!;
  /** The shared log's heads (the test log's name their log). */
  const sharedHeads = () => ofType('TreeHeadSigned').filter((r) => headOf(r).log === undefined);
  const lastHead = () => headOf(sharedHeads().at(-1)!);

  /** Replaces one character of `row`'s stored data (at the first occurrence of `after` plus `offset`). */
  const flipCharacter = (row: Row, after: string, offset: number, to?: string) => (db: Database.Database) => {
    const at = row.data.indexOf(after) + after.length + offset;
    expect(at).toBeGreaterThanOrEqual(after.length);
    const was = row.data[at]!;
    const next = to ?? (was === 'a' ? 'b' : was === '0' ? '1' : was === 'A' ? 'B' : 'a');
    db.prepare('UPDATE events SET data = ? WHERE position = ?').run(
      row.data.slice(0, at) + next + row.data.slice(at + 1),
      row.position,
    );
  };

  const appendTreeHead = (db: Database.Database, head: TreeHead & { checkpoint: string; origin: string }) => {
    const logRows = ofType('TreeHeadSigned');
    const last = rows.at(-1)!;
    db.prepare(
      `INSERT INTO events (position, id, stream, revision, type, recorded_at, tenant_id, correlation_id, causation_id, schema_version, data)
       VALUES (?, ?, 'merkle-log', ?, 'TreeHeadSigned', ?, 'system', ?, NULL, 1, ?)`,
    ).run(
      last.position + 1,
      crypto.randomUUID(),
      logRows.at(-1)!.revision + 1,
      head.timestamp,
      'forged',
      JSON.stringify(head),
    );
    return last.position + 1;
  };

  /** A tree head over the same leaves as the last one, one second later, signed by `signer`. */
  const nextHead = (signer: NoteSigner, rootHash: string) => {
    const last = lastHead();
    const time = new Date(Date.parse(last.timestamp) + 1000);
    return {
      origin: signer.name,
      tree_size: last.tree_size,
      root_hash: rootHash,
      timestamp: time.toISOString(),
      checkpoint: signCheckpoint(
        {
          origin: signer.name,
          size: last.tree_size,
          rootHash: fromHex(rootHash),
          extensions: [timestampExtension(time)],
        },
        signer,
      ),
      first_leaf_index: last.tree_size,
      leaf_positions: [],
    };
  };

  /** `gov` with a data folder that holds nothing: every store and key it reads is named. */
  const gov = (args: string[]) => runGov(args, { dataDir: path.join(work.dir, 'no-data') });

  // ---- the clean store ------------------------------------------------------------------------------

  it('given the store as the server left it, with every event type, when audited on worker threads, then it is clean and every admission is a leaf of the last signed root', async () => {
    expect(new Set(rows.map((r) => r.type))).toEqual(
      new Set([
        'TenantRegistered',
        'TenantTierChanged',
        'EvidenceAdmitted',
        'GateFailed',
        'ExecutionAdmitted',
        'VarianceRecorded',
        'TreeHeadSigned',
        'ApiKeyRotated',
        'WebhookRegistered',
        'WebhookRemoved',
        // The test log's, created at the first start.
        'LogCreated',
      ]),
    );
    const report = await audit(copyOfStore(), { workers: 2 });
    expect(report.discrepancies).toEqual([]);
    expect(report.notices).toEqual([]);
    const admissions = rows.filter((r) =>
      ['EvidenceAdmitted', 'ExecutionAdmitted', 'VarianceRecorded'].includes(r.type),
    );
    expect(report).toMatchObject({
      events: rows.length,
      leaves: admissions.length,
      tree_heads: ofType('TreeHeadSigned').length,
      tree_size: admissions.length,
      root_hash: lastHead().root_hash,
    });
  });

  // ---- one byte flipped ----------------------------------------------------------------------------

  it('when one byte of an envelope signature is flipped, then the signature, the leaf hash and every root from its tree head on are reported', async () => {
    const evidence = ofType('EvidenceAdmitted')[1]!;
    const report = await audit(copyOfStore(flipCharacter(evidence, '"authority_signature":"', 10)));
    const heads = ofType('TreeHeadSigned').filter(
      (r) => r.position >= headIntegrating(evidence.position).position,
    );
    expect(found(report)).toEqual([
      [evidence.position, 'envelope-signature'],
      [evidence.position, 'leaf-hash-mismatch'],
      ...heads.map((h) => [h.position, 'root-mismatch']),
    ]);
    expect(report.discrepancies[0]).toMatchObject({ event_id: evidence.id, event_type: 'EvidenceAdmitted' });
  });

  it("when one byte of a tree head's checkpoint signature is flipped, then that head's signature is reported, and nothing else", async () => {
    const head = ofType('TreeHeadSigned')[2]!;
    const report = await audit(copyOfStore(flipCharacter(head, `${logSigner.name} `, 12)));
    expect(found(report)).toEqual([[head.position, 'sth-signature']]);
    expect(report.discrepancies[0]!.message).toMatch(/invalid signature by/);
  });

  it('when one hex digit of a stored artifact_hash is flipped, then that hash alone is reported (the leaf, the envelope, is intact)', async () => {
    const evidence = ofType('EvidenceAdmitted')[2]!;
    const report = await audit(copyOfStore(flipCharacter(evidence, '"artifact_hash":"', 5)));
    expect(found(report)).toEqual([[evidence.position, 'artifact-hash-mismatch']]);
  });

  it('when one hex digit of a stored leaf_hash is flipped, then the stored hash is reported and the roots still match the records', async () => {
    const execution = ofType('ExecutionAdmitted')[0]!;
    const report = await audit(copyOfStore(flipCharacter(execution, '"leaf_hash":"', 0)));
    expect(found(report)).toEqual([[execution.position, 'leaf-hash-mismatch']]);
  });

  it('when one byte makes an authorization invalid JSON, then it is reported, the roots from its tree head on are reported unverifiable, and so is the execution that names it', async () => {
    const evidence = ofType('EvidenceAdmitted')[0]!;
    const report = await audit(copyOfStore(flipCharacter(evidence, '{', 0, '#')));
    const head = headIntegrating(evidence.position);
    expect(found(report)).toEqual([
      [evidence.position, 'json-invalid'],
      [head.position, 'root-unverifiable'],
      [ofType('ExecutionAdmitted')[0]!.position, 'execution-parent'],
      [ofType('VarianceRecorded')[0]!.position, 'variance-parent'],
    ]);
    expect(report.root_hash).toBeNull();
    expect(report.notices.join('\n')).toMatch(/could not be checked against a recomputed root/);
  });

  // ---- the log structure alone (--checks log) ------------------------------------------------------

  it('given the clean store, when its log structure alone is audited on worker threads, then it is clean, with the same tree and root as the full audit and one signature per tree head', async () => {
    const file = copyOfStore();
    const [all, log] = [await audit(file), await audit(file, { checks: 'log', workers: 2 })];
    expect(log).toMatchObject({
      checks: 'log',
      discrepancies: [],
      notices: [],
      events: all.events,
      leaves: all.leaves,
      tree_heads: all.tree_heads,
      tree_size: all.tree_size,
      root_hash: all.root_hash,
      signatures: all.tree_heads,
    });
    const evidence = ofType('EvidenceAdmitted').length;
    expect(all).toMatchObject({ checks: 'all', signatures: evidence * 5 + all.tree_heads });
  });

  it('when one byte of an envelope signature is flipped, then the log audit reports the leaf hash and every root from its tree head on (it does not check the signature itself)', async () => {
    const evidence = ofType('EvidenceAdmitted')[1]!;
    const file = copyOfStore(flipCharacter(evidence, '"authority_signature":"', 10));
    const heads = ofType('TreeHeadSigned').filter(
      (r) => r.position >= headIntegrating(evidence.position).position,
    );
    expect(found(await audit(file, { checks: 'log' }))).toEqual([
      [evidence.position, 'leaf-hash-mismatch'],
      ...heads.map((h) => [h.position, 'root-mismatch']),
    ]);
  });

  it('when a validator vote of a certificate (not part of the leaf) is altered, then the full audit reports it and the log audit, which reads leaf records only, does not', async () => {
    const evidence = ofType('EvidenceAdmitted')[0]!;
    const file = copyOfStore(flipCharacter(evidence, '"votes":[{"type":"GOV_VOTE_V1","validator_id":"', 3));
    expect(found(await audit(file))).toEqual([
      [evidence.position, 'certificate-invalid'],
      [evidence.position, 'certificate-mismatch'],
    ]);
    expect(found(await audit(file, { checks: 'log' }))).toEqual([]);
  });

  it("when one byte of a tree head's checkpoint signature is flipped, or a byte makes an admission invalid JSON, then the log audit reports them as the full audit does", async () => {
    const head = ofType('TreeHeadSigned')[2]!;
    expect(
      found(await audit(copyOfStore(flipCharacter(head, `${logSigner.name} `, 12)), { checks: 'log' })),
    ).toEqual([[head.position, 'sth-signature']]);
    const evidence = ofType('EvidenceAdmitted')[0]!;
    const broken = await audit(copyOfStore(flipCharacter(evidence, '{', 0, '#')), { checks: 'log' });
    expect(found(broken)).toEqual([
      [evidence.position, 'json-invalid'],
      [headIntegrating(evidence.position).position, 'root-unverifiable'],
    ]);
  });

  it('when gov audit --checks log runs, then its summary says what it checked; --checks of another kind is a usage error', async () => {
    const { code, stdout } = await gov([
      'audit',
      '--store',
      copyOfStore(),
      '--keys-dir',
      keysDir,
      '--checks',
      'log',
      '--workers',
      '1',
    ]);
    expect(stdout).toMatch(/\(the log structure alone: --checks log\)/);
    expect(stdout).toMatch(/clean: every leaf record, leaf hash, root and signed tree head checks out/);
    expect(code).toBe(0);
    const wrong = await gov(['audit', '--store', copyOfStore(), '--keys-dir', keysDir, '--checks', 'some']);
    expect(wrong.stderr).toMatch(/--checks is all \(every check\) or log/);
    expect(wrong.code).toBe(2);
  });

  // ---- dropped events ------------------------------------------------------------------------------

  it('when an admission is deleted, then its stream has a gap and the tree head naming it is reported', async () => {
    const evidence = ofType('EvidenceAdmitted').find(
      (r) => r.stream !== ofType('ExecutionAdmitted')[0]!.stream,
    )!;
    const nextInStream = rows.find(
      (r) => r.stream === evidence.stream && r.revision === evidence.revision + 1,
    )!;
    const head = headIntegrating(evidence.position);
    const report = await audit(
      copyOfStore((db) => db.prepare('DELETE FROM events WHERE position = ?').run(evidence.position)),
    );
    expect(found(report)).toEqual(
      [
        [nextInStream.position, 'revision-gap'],
        [head.position, 'leaf-position'],
        [head.position, 'root-unverifiable'],
      ].sort((a, b) => (a[0] as number) - (b[0] as number)),
    );
    expect(report.discrepancies.find((d) => d.check === 'leaf-position')!.message).toMatch(
      new RegExp(`position ${evidence.position}, where no admission event was read`),
    );
  });

  it('when a TreeHeadSigned in the middle is deleted, then the next one has a revision gap and starts ahead, and the roots still check out', async () => {
    const heads = ofType('TreeHeadSigned').filter((r) => headOf(r).leaf_positions.length > 0);
    const dropped = heads[1]!;
    const next = ofType('TreeHeadSigned').find((r) => r.revision === dropped.revision + 1)!;
    const report = await audit(
      copyOfStore((db) => db.prepare('DELETE FROM events WHERE position = ?').run(dropped.position)),
    );
    expect(found(report)).toEqual([
      [next.position, 'revision-gap'],
      [next.position, 'first-leaf-index'],
    ]);
    expect(report.tree_size).toBe(lastHead().tree_size);
    expect(report.root_hash).toBe(lastHead().root_hash);
  });

  // ---- reordered events ----------------------------------------------------------------------------

  it('when two consecutive admissions of a stream swap rows, then both revisions are out of order and the root of their tree head is reported', async () => {
    const evidences = ofType('EvidenceAdmitted');
    const first = evidences.find((e) =>
      evidences.some((n) => n.stream === e.stream && n.revision === e.revision + 1),
    )!;
    const second = evidences.find((n) => n.stream === first.stream && n.revision === first.revision + 1)!;
    const report = await audit(
      copyOfStore((db) => {
        const read = db.prepare(`SELECT ${COLUMNS.join(', ')} FROM events WHERE position = ?`).raw(true);
        const a = read.get(first.position) as unknown[];
        const b = read.get(second.position) as unknown[];
        const write = db.prepare(
          `UPDATE events SET ${COLUMNS.map((c) => `${c} = ?`).join(', ')} WHERE position = ?`,
        );
        db.prepare("UPDATE events SET id = 'moving', revision = -1 WHERE position = ?").run(first.position);
        write.run(...a, second.position);
        write.run(...b, first.position);
      }),
    );
    const checks = found(report);
    expect(checks).toContainEqual([first.position, 'revision-gap']);
    expect(checks).toContainEqual([second.position, 'revision-order']);
    expect(checks).toContainEqual([headIntegrating(first.position).position, 'root-mismatch']);
    expect(new Set(checks.map(([, check]) => check))).toEqual(
      new Set(['revision-gap', 'revision-order', 'root-mismatch']),
    );
  });

  // ---- keys and forged tree heads ------------------------------------------------------------------

  it('when audited with another trusted log key, then every tree head of the shared log is reported as not verifying', async () => {
    const stranger = loadSignerKey(generateKeyPair(logSigner.name).signerKey);
    const report = await audit(copyOfStore(), {
      trust: { ...trust, logVerifierKeys: [stranger.verifierKey] },
    });
    // The test log's heads verify under the key its LogCreated names, which the trust does not replace.
    const heads = sharedHeads().map((r) => r.position);
    expect(report.discrepancies.filter((d) => d.check === 'sth-signature').map((d) => d.position)).toEqual(
      heads,
    );
    // The envelopes name the real key as their log: they are reported too, and nothing else is.
    expect(new Set(report.discrepancies.map((d) => d.check))).toEqual(
      new Set(['sth-signature', 'envelope-log-binding']),
    );
  });

  it('when a tree head with a wrong root is appended, signed by the real log key, then its root is reported', async () => {
    let forged = 0;
    const report = await audit(
      copyOfStore((db) => (forged = appendTreeHead(db, nextHead(logSigner, digest('forged root'))))),
    );
    expect(found(report)).toEqual([[forged, 'root-mismatch']]);
    expect(report.discrepancies[0]).toMatchObject({
      event_type: 'TreeHeadSigned',
      tree_size: lastHead().tree_size,
    });
  });

  it('when a tree head with the right root is appended, signed by another key of the same name, then its signature is reported', async () => {
    const impostor = loadSignerKey(generateKeyPair(logSigner.name).signerKey);
    let forged = 0;
    const report = await audit(
      copyOfStore((db) => (forged = appendTreeHead(db, nextHead(impostor, lastHead().root_hash)))),
    );
    expect(found(report)).toEqual([[forged, 'sth-signature']]);
  });

  it('when an event of an unknown type is injected, then it is reported as such', async () => {
    const position = rows.at(-1)!.position + 1;
    const report = await audit(
      copyOfStore((db) =>
        db
          .prepare(
            `INSERT INTO events VALUES (?, ?, 'elsewhere', 0, 'MysteryHappened', '2025-01-01T00:00:00.000Z', 'system', 'x', NULL, 1, '{}')`,
          )
          .run(position, crypto.randomUUID()),
      ),
    );
    expect(found(report)).toEqual([[position, 'unknown-event-type']]);
  });

  // ---- an export -----------------------------------------------------------------------------------

  it('given an NDJSON export of the store, when audited, then it is clean; when one of its bytes changes, then the checksum failure is reported too', async () => {
    const file = path.join(work.dir, 'events.ndjson');
    const store = new SqliteEventStore({ file: copyOfStore() });
    const output = fs.createWriteStream(file);
    await writeExport({ store, source: 'sqlite:copy', output });
    await new Promise<void>((resolve) => output.end(resolve));
    await store.close();
    expect((await runAudit(exportAuditSource(file), { trust, workers: 0 })).discrepancies).toEqual([]);
    const command = await gov(['audit', '--export', file, '--keys-dir', keysDir, '--workers', '0']);
    expect(command.stdout).toMatch(/clean: every event/);
    expect(command.code).toBe(0);

    const text = fs.readFileSync(file, 'utf8');
    const at = text.indexOf('"artifact_hash":"') + '"artifact_hash":"'.length;
    fs.writeFileSync(file, text.slice(0, at) + (text[at] === 'a' ? 'b' : 'a') + text.slice(at + 1));
    const report = await runAudit(exportAuditSource(file), { trust, workers: 0 });
    expect(report.discrepancies.map((d) => d.check)).toEqual(['artifact-hash-mismatch', 'source-integrity']);
    expect(report.discrepancies[1]).toMatchObject({ position: null });
  });

  // ---- the command ---------------------------------------------------------------------------------

  it('when gov audit runs on the clean store, then it prints a clean summary and exits 0', async () => {
    const { code, stdout } = await gov(['audit', '--store', copyOfStore(), '--keys-dir', keysDir]);
    expect(stdout).toMatch(/clean: every event, leaf, root and signed tree head checks out/);
    expect(stdout).toContain(`tree size ${lastHead().tree_size}, root ${lastHead().root_hash}`);
    expect(code).toBe(0);
  });

  it('when gov audit runs on a tampered store, then it lists each discrepancy with position, event id, type and check, and exits 3', async () => {
    const evidence = ofType('EvidenceAdmitted')[2]!;
    const { code, stdout } = await gov([
      'audit',
      '--store',
      copyOfStore(flipCharacter(evidence, '"artifact_hash":"', 5)),
      '--keys-dir',
      keysDir,
      '--workers',
      '1',
    ]);
    expect(stdout).toContain(
      `[artifact-hash-mismatch] position ${evidence.position}, EvidenceAdmitted, event ${evidence.id}`,
    );
    expect(stdout).toContain('1 discrepancy:');
    expect(code).toBe(3);
  });

  it('when gov audit --json runs with the published keys as a trust file, then it prints the report as JSON', async () => {
    const trustFile = path.join(work.dir, 'trust.json');
    fs.writeFileSync(trustFile, JSON.stringify(readPublishedKeys(keysDir)));
    const { code, stdout } = await gov([
      'audit',
      '--store',
      copyOfStore(),
      '--trust',
      trustFile,
      '--json',
      '--workers',
      '0',
    ]);
    expect(JSON.parse(stdout)).toMatchObject({
      events: rows.length,
      discrepancies: [],
      root_hash: lastHead().root_hash,
    });
    expect(code).toBe(0);
  });

  it('when the store file does not exist, then gov audit says so and exits 1; bad arguments exit 2', async () => {
    const missing = await gov(['audit', '--store', path.join(work.dir, 'nowhere.db'), '--keys-dir', keysDir]);
    expect(missing.stderr).toMatch(/nowhere\.db does not exist/);
    expect(missing.code).toBe(1);
    const both = await gov(['audit', '--store', 'a.db', '--export', 'b.ndjson']);
    expect(both.code).toBe(2);
  });
});
