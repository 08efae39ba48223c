/**
 * The closed-loop links (execution → authorization, variance → execution and authorization) need a
 * lookup by leaf hash over every leaf seen, and each admission's policy the tenant's policy changes
 * before it; neither must live in memory: a 1M-leaf log would hold 1M entries. Instead, the facts the links need go to temporary SQLite files in os.tmpdir() — one per
 * checking thread, appended as chunks are checked — and at the end they are gathered, indexed once by
 * sorting, and the links are checked with joins. The folder is removed when the audit ends.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { threadId } from 'node:worker_threads';
import Database from 'better-sqlite3';
import { DEFAULT_POLICY_IN_FORCE } from '../domain/governance/policy';
import { fromHex } from '../merkle-core';
import type { Hce, LinkFacts } from './event-facts';
import type { Discrepancy } from './report';

const KIND = { authorization: 1, execution: 2, variance: 3 } as const;

type InsertRow = [
  position: number,
  kind: number,
  eventId: string | null,
  hash: Uint8Array | null,
  tenant: string,
  subject: string,
  parentAuth: Uint8Array | null,
  parentExec: Uint8Array | null,
  ...first: [number, number, number],
  ...second: [number | null, number | null, number | null],
  policy: Uint8Array | null,
];

type PolicyRow = [
  position: number,
  eventId: string,
  tenant: string,
  version: number,
  hash: Uint8Array,
  previous: Uint8Array,
];

/** One row per leaf: the first state is the authorization's observables, the execution's exec_state or
 * the variance's auth_state; the second state is the variance's exec_state. `policy` is the hash of
 * the policy an authorization names (null: the default). */
const LEAVES_TABLE = `CREATE TABLE IF NOT EXISTS leaves (
  position INTEGER PRIMARY KEY, kind INTEGER NOT NULL, event_id TEXT, hash BLOB,
  tenant TEXT NOT NULL, subject TEXT NOT NULL, parent_auth BLOB, parent_exec BLOB,
  h1 REAL NOT NULL, c1 REAL NOT NULL, e1 REAL NOT NULL, h2 REAL, c2 REAL, e2 REAL, policy BLOB)`;

/** One row per TenantPolicyChanged (rare): `hash` recomputed from its policy. */
const POLICIES_TABLE = `CREATE TABLE IF NOT EXISTS policies (
  position INTEGER PRIMARY KEY, event_id TEXT NOT NULL, tenant TEXT NOT NULL,
  version INTEGER NOT NULL, hash BLOB NOT NULL, previous BLOB NOT NULL)`;

const DEFAULT_POLICY_HASH = DEFAULT_POLICY_IN_FORCE.policy_hash;

const PART_FILE = /^part-\d+\.db$/;

function openScratch(file: string, cacheKiB: number): Database.Database {
  const db = new Database(file);
  // A scratch file: nothing to recover after a crash, so no journal and no fsync.
  db.pragma('journal_mode = OFF');
  db.pragma('synchronous = OFF');
  db.pragma(`cache_size = -${cacheKiB}`);
  db.pragma('temp_store = FILE');
  db.exec(LEAVES_TABLE);
  db.exec(POLICIES_TABLE);
  return db;
}

/**
 * One thread's part of the link facts: appended as its chunks are checked (in parallel with the other
 * threads), one transaction per chunk. Each thread writes its own file, so they never wait for a lock.
 */
export class LinkWriter {
  private readonly db: Database.Database;
  private readonly insert: Database.Statement<InsertRow>;
  private readonly insertPolicy: Database.Statement<PolicyRow>;
  private inTransaction = false;

  constructor(dir: string) {
    this.db = openScratch(path.join(dir, `part-${threadId}.db`), 4096);
    this.insert = this.db.prepare<InsertRow>(
      'INSERT OR REPLACE INTO leaves VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)',
    );
    this.insertPolicy = this.db.prepare<PolicyRow>('INSERT OR REPLACE INTO policies VALUES (?,?,?,?,?,?)');
  }

  /** Records the link facts of the leaf at `position` (hash: its recomputed leaf hash). */
  add(position: number, eventId: string, hash: Uint8Array | null, link: LinkFacts): void {
    if (!this.inTransaction) {
      this.db.exec('BEGIN');
      this.inTransaction = true;
    }
    switch (link.kind) {
      case 'authorization':
        this.insert.run(
          position,
          KIND.authorization,
          eventId,
          hash,
          link.tenant,
          link.subject,
          null,
          null,
          ...link.observables,
          null,
          null,
          null,
          link.policy,
        );
        return;
      case 'policy':
        this.insertPolicy.run(position, eventId, link.tenant, link.version, link.hash, link.previousHash);
        return;
      case 'execution':
        this.insert.run(
          position,
          KIND.execution,
          eventId,
          hash,
          link.tenant,
          link.subject,
          fromHex(link.parentAuth),
          null,
          ...link.execState,
          null,
          null,
          null,
          null,
        );
        return;
      case 'variance':
        this.insert.run(
          position,
          KIND.variance,
          eventId,
          null,
          link.tenant,
          link.subject,
          fromHex(link.parentAuth),
          fromHex(link.parentExec),
          ...link.authState,
          ...link.execState,
          null,
        );
        return;
    }
  }

  /** Ends the current chunk's transaction. */
  commit(): void {
    if (!this.inTransaction) return;
    this.db.exec('COMMIT');
    this.inTransaction = false;
  }

  close(): void {
    this.commit();
    this.db.close();
  }
}

/**
 * The audit's scratch folder for link facts, and the link checks over every thread's part once all
 * leaves are written (and every writer closed).
 */
export class LinkChecks {
  private db: Database.Database | null = null;

  private constructor(readonly dir: string) {}

  /** A fresh scratch folder under os.tmpdir(). */
  static create(): LinkChecks {
    return new LinkChecks(fs.mkdtempSync(path.join(os.tmpdir(), 'gov-audit-links-')));
  }

  /** Every link fault, in position order. */
  *discrepancies(): Generator<Discrepancy> {
    this.db = openScratch(path.join(this.dir, 'links.db'), 32768);
    const db = this.db;
    // The parts are gathered into one table, then indexed once by sorting: cheaper than keeping
    // an index sorted through a million random inserts.
    for (const part of fs.readdirSync(this.dir).filter((name) => PART_FILE.test(name))) {
      db.prepare('ATTACH DATABASE ? AS part').run(path.join(this.dir, part));
      db.exec('INSERT OR REPLACE INTO leaves SELECT * FROM part.leaves');
      db.exec('INSERT OR REPLACE INTO policies SELECT * FROM part.policies');
      db.exec('DETACH DATABASE part');
    }
    db.exec(`CREATE INDEX leaves_by_hash ON leaves (hash, kind, position) WHERE hash IS NOT NULL;
      CREATE INDEX executions_by_parent ON leaves (parent_auth, position) WHERE kind = ${KIND.execution};
      CREATE INDEX policies_by_tenant ON policies (tenant, position);`);
    yield* this.executionFaults();
    yield* this.varianceFaults();
    yield* this.policyChainFaults();
    yield* this.admittedPolicyFaults();
  }

  /** Removes the scratch folder and everything in it. */
  close(): void {
    if (this.db?.open) this.db.close();
    fs.rmSync(this.dir, { recursive: true, force: true });
  }

  private *executionFaults(): Generator<Discrepancy> {
    const rows = this.db!.prepare<[], ExecutionRow>(
      `SELECT x.position, x.event_id, x.tenant, x.subject, hex(x.parent_auth) AS parent_auth,
                a.position AS auth_position, a.tenant AS auth_tenant, a.subject AS auth_subject,
                (SELECT MIN(y.position) FROM leaves y
                  WHERE y.kind = ${KIND.execution} AND y.parent_auth = x.parent_auth AND y.position < x.position) AS executed_at
           FROM leaves x
           LEFT JOIN leaves a ON a.position = (
             SELECT MIN(p.position) FROM leaves p
              WHERE p.hash = x.parent_auth AND p.kind = ${KIND.authorization} AND p.position < x.position)
          WHERE x.kind = ${KIND.execution}
          ORDER BY x.position`,
    ).iterate();
    for (const row of rows) {
      const parent = row.parent_auth.toLowerCase();
      const fault = (message: string): Discrepancy => ({
        position: row.position,
        event_id: row.event_id,
        event_type: 'ExecutionAdmitted',
        check: 'execution-parent',
        message,
      });
      if (row.auth_position === null) {
        yield fault(
          `the trace names authorization leaf ${parent}, which no readable EvidenceAdmitted before it carries`,
        );
        continue;
      }
      if (row.auth_tenant !== row.tenant)
        yield fault(
          `the trace's authorization leaf ${parent} (position ${row.auth_position}) belongs to tenant ${row.auth_tenant}, not ${row.tenant}`,
        );
      if (row.auth_subject !== row.subject)
        yield fault(
          `the trace is for subject ${row.subject}, but its authorization leaf ${parent} (position ${row.auth_position}) is for ${row.auth_subject}`,
        );
      if (row.executed_at !== null)
        yield fault(
          `authorization leaf ${parent} was already executed at position ${row.executed_at}: each authorization is executed once`,
        );
    }
  }

  private *varianceFaults(): Generator<Discrepancy> {
    const rows = this.db!.prepare<[], VarianceRow>(
      `SELECT v.position, v.event_id, v.tenant, v.subject,
                hex(v.parent_auth) AS parent_auth, hex(v.parent_exec) AS parent_exec,
                v.h1, v.c1, v.e1, v.h2, v.c2, v.e2,
                x.position AS exec_position, x.tenant AS exec_tenant, hex(x.parent_auth) AS exec_parent_auth,
                x.h1 AS exec_h, x.c1 AS exec_c, x.e1 AS exec_e,
                a.position AS auth_position, a.tenant AS auth_tenant,
                a.h1 AS auth_h, a.c1 AS auth_c, a.e1 AS auth_e
           FROM leaves v
           LEFT JOIN leaves x ON x.position = (
             SELECT MIN(p.position) FROM leaves p
              WHERE p.hash = v.parent_exec AND p.kind = ${KIND.execution} AND p.position < v.position)
           LEFT JOIN leaves a ON a.position = (
             SELECT MIN(p.position) FROM leaves p
              WHERE p.hash = v.parent_auth AND p.kind = ${KIND.authorization} AND p.position < v.position)
          WHERE v.kind = ${KIND.variance}
          ORDER BY v.position`,
    ).iterate();
    for (const row of rows) {
      const fault = (check: 'variance-parent' | 'variance-state', message: string): Discrepancy => ({
        position: row.position,
        event_id: row.event_id,
        event_type: 'VarianceRecorded',
        check,
        message,
      });
      const parentAuth = row.parent_auth.toLowerCase();
      const parentExec = row.parent_exec.toLowerCase();
      if (row.exec_position === null)
        yield fault(
          'variance-parent',
          `the record names execution leaf ${parentExec}, which no readable ExecutionAdmitted before it carries`,
        );
      else {
        if (row.exec_parent_auth !== row.parent_auth)
          yield fault(
            'variance-parent',
            `the record names authorization ${parentAuth}, but its execution (position ${row.exec_position}) executes ${row.exec_parent_auth?.toLowerCase()}`,
          );
        if (row.exec_tenant !== row.tenant)
          yield fault(
            'variance-parent',
            `its execution (position ${row.exec_position}) belongs to tenant ${row.exec_tenant}, not ${row.tenant}`,
          );
        const exec: Hce = [row.exec_h!, row.exec_c!, row.exec_e!];
        if (!sameState([row.h2!, row.c2!, row.e2!], exec))
          yield fault(
            'variance-state',
            `exec_state ${spell([row.h2!, row.c2!, row.e2!])} is not the exec_state of its execution trace ${spell(exec)}`,
          );
      }
      if (row.auth_position === null)
        yield fault(
          'variance-parent',
          `the record names authorization leaf ${parentAuth}, which no readable EvidenceAdmitted before it carries`,
        );
      else {
        if (row.auth_tenant !== row.tenant)
          yield fault(
            'variance-parent',
            `its authorization (position ${row.auth_position}) belongs to tenant ${row.auth_tenant}, not ${row.tenant}`,
          );
        const auth: Hce = [row.auth_h!, row.auth_c!, row.auth_e!];
        if (!sameState([row.h1, row.c1, row.e1], auth))
          yield fault(
            'variance-state',
            `auth_state ${spell([row.h1, row.c1, row.e1])} is not the observables its authorization was admitted with ${spell(auth)}`,
          );
      }
    }
  }

  /** Each policy change follows the tenant's previous policy (the default before the first change). */
  private *policyChainFaults(): Generator<Discrepancy> {
    const rows = this.db!.prepare<[], PolicyChainRow>(
      `SELECT p.position, p.event_id, p.tenant, p.version, lower(hex(p.previous)) AS previous,
              q.position AS before_position, q.version AS before_version, nullif(lower(hex(q.hash)), '') AS before_hash
         FROM policies p
         LEFT JOIN policies q ON q.position = (
           SELECT MAX(r.position) FROM policies r WHERE r.tenant = p.tenant AND r.position < p.position)
        ORDER BY p.position`,
    ).iterate();
    for (const row of rows) {
      const version = (row.before_version ?? 1) + 1;
      const previous = row.before_hash ?? DEFAULT_POLICY_HASH;
      const before =
        row.before_position === null
          ? 'the default policy (version 1)'
          : `its policy change at position ${row.before_position} (version ${row.before_version})`;
      if (row.version !== version || row.previous !== previous)
        yield {
          position: row.position,
          event_id: row.event_id,
          event_type: 'TenantPolicyChanged',
          check: 'policy-chain',
          message: `version ${row.version} replacing policy ${row.previous} does not follow tenant ${row.tenant}'s ${before}: version ${version} replacing ${previous} was due`,
        };
    }
  }

  /**
   * Each admission of a tenant that ever changed its policy (or naming a policy) names the policy in
   * force at its position: the latest change before it, or the default. A tenant that never changed
   * its policy costs nothing here.
   */
  private *admittedPolicyFaults(): Generator<Discrepancy> {
    const rows = this.db!.prepare<[], AdmittedPolicyRow>(
      `SELECT a.position, a.event_id, a.tenant, nullif(lower(hex(a.policy)), '') AS named,
              p.position AS policy_position, p.version, nullif(lower(hex(p.hash)), '') AS in_force
         FROM leaves a
         LEFT JOIN policies p ON p.position = (
           SELECT MAX(q.position) FROM policies q WHERE q.tenant = a.tenant AND q.position < a.position)
        WHERE a.kind = ${KIND.authorization}
          AND (a.policy IS NOT NULL OR a.tenant IN (SELECT tenant FROM policies))
        ORDER BY a.position`,
    ).iterate();
    for (const row of rows) {
      const named = row.named ?? DEFAULT_POLICY_HASH;
      const inForce = row.in_force ?? DEFAULT_POLICY_HASH;
      if (named === inForce) continue;
      const expected =
        row.policy_position === null
          ? 'the default policy'
          : `version ${row.version} (${inForce}, changed at position ${row.policy_position})`;
      yield {
        position: row.position,
        event_id: row.event_id,
        event_type: 'EvidenceAdmitted',
        check: 'policy-mismatch',
        message: `the evidence was admitted under ${row.named ? `policy ${named}` : 'the default policy'}, but tenant ${row.tenant}'s policy in force then was ${expected}`,
      };
    }
  }
}

interface PolicyChainRow {
  position: number;
  event_id: string;
  tenant: string;
  version: number;
  previous: string;
  before_position: number | null;
  before_version: number | null;
  before_hash: string | null;
}

interface AdmittedPolicyRow {
  position: number;
  event_id: string;
  tenant: string;
  named: string | null;
  policy_position: number | null;
  version: number | null;
  in_force: string | null;
}

interface ExecutionRow {
  position: number;
  event_id: string;
  tenant: string;
  subject: string;
  parent_auth: string;
  auth_position: number | null;
  auth_tenant: string | null;
  auth_subject: string | null;
  executed_at: number | null;
}

interface VarianceRow {
  position: number;
  event_id: string;
  tenant: string;
  subject: string;
  parent_auth: string;
  parent_exec: string;
  h1: number;
  c1: number;
  e1: number;
  h2: number | null;
  c2: number | null;
  e2: number | null;
  exec_position: number | null;
  exec_tenant: string | null;
  exec_parent_auth: string | null;
  exec_h: number | null;
  exec_c: number | null;
  exec_e: number | null;
  auth_position: number | null;
  auth_tenant: string | null;
  auth_h: number | null;
  auth_c: number | null;
  auth_e: number | null;
}

function sameState(a: Hce, b: Hce): boolean {
  return a[0] === b[0] && a[1] === b[1] && a[2] === b[2];
}

function spell([H, C, E]: Hce): string {
  return `{H: ${H}, C: ${C}, E: ${E}}`;
}
