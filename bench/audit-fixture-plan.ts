/**
 * What the audit fixture's simulated tenants submit: pure decisions about the workload (how many
 * tenants, how the leaves are shared out, which request each tenant sends next and its body), so the
 * signing threads only run the command handlers' domain functions over them.
 */
import { createHash } from 'node:crypto';
import { validBody } from '../domain/governance/test-fixtures';
import type { SubmitEvidenceBody, SubmitExecutionBody } from '../event-schemas';

/** Bump when the fixture's content changes: cached fixtures of another version are not reused. */
export const AUDIT_FIXTURE_VERSION = 2;

/** About this many leaves per tenant; a million leaves make a thousand tenants. */
const LEAVES_PER_TENANT = 1000;
/** Subjects (models) each tenant submits evidence about, in turn. */
const SUBJECTS_PER_TENANT = 8;
/** Every this-many-th request of a tenant is evidence that fails gate G1 (a GateFailed, no leaf). */
export const GATE_FAILURE_EVERY = 50;
/** Every this-many-th request of a tenant executes its last authorization (two leaves). */
export const EXECUTION_EVERY = 25;
/** Every this-many-th execution deviates from its authorization (a variance that is not NOMINAL). */
const DEVIATION_EVERY = 4;

/**
 * Requests in flight at once across all signing threads, as the admission benchmark's 64 connections:
 * the log sequencer then integrates batches of about the size a busy server sees.
 */
export const CONCURRENT_CLIENTS = 64;

/** Leaves each tenant admits: `total` shared as evenly as possible, at least one tenant. */
export function tenantQuotas(totalLeaves: number): number[] {
  if (!Number.isSafeInteger(totalLeaves) || totalLeaves < 1)
    throw new RangeError(`the fixture needs a whole number of leaves ≥ 1 (got ${totalLeaves})`);
  const tenants = Math.max(1, Math.round(totalLeaves / LEAVES_PER_TENANT));
  const base = Math.floor(totalLeaves / tenants);
  const extra = totalLeaves % tenants;
  return Array.from({ length: tenants }, (_, i) => base + (i < extra ? 1 : 0));
}

/** Tenant indexes owned by one of `threads` signing threads: each tenant's stream has one writer. */
export function tenantsOfThread(tenantCount: number, thread: number, threads: number): number[] {
  const owned: number[] = [];
  for (let i = thread; i < tenantCount; i += threads) owned.push(i);
  return owned;
}

export type RequestKind = 'evidence' | 'failing-evidence' | 'execution';

export interface TenantProgress {
  /** Requests sent so far (of every kind). */
  requests: number;
  /** Leaves still to admit. */
  leavesLeft: number;
  /** Whether the tenant has an admitted authorization that has no execution yet. */
  hasUnexecutedAuthorization: boolean;
}

/** The tenant's next request: mostly passing evidence, now and then a gate failure or an execution. */
export function nextRequestKind(progress: TenantProgress): RequestKind {
  const n = progress.requests + 1;
  if (n % GATE_FAILURE_EVERY === 0) return 'failing-evidence';
  if (n % EXECUTION_EVERY === 0 && progress.leavesLeft >= 2 && progress.hasUnexecutedAuthorization)
    return 'execution';
  return 'evidence';
}

/** The subject a tenant's `request`-th request is about. */
function subjectOf(request: number): string {
  return `model-${request % SUBJECTS_PER_TENANT}`;
}

/**
 * A passing POST /governance/evidence body whose evidence digests are unique to the tenant and the
 * request, so no two bundles are alike; `failing` lowers G1's bound under the default policy minimum.
 */
export function evidenceBody(tenant: number, request: number, failing = false): SubmitEvidenceBody {
  const body = validBody();
  const digest = (what: string) => sha256Hex(`audit-fixture/${tenant}/${request}/${what}`);
  body.subject_id = subjectOf(request);
  body.replay_seed = digest('seed').slice(0, 16);
  body.evidence = {
    dataset_provenance_hash: digest('dataset'),
    evaluation_trace_hash: digest('evaluation'),
    ablation_execution_log_hash: digest('ablation'),
    capability_certificate_hash: digest('capability'),
  };
  body.state_before_hash = digest('before');
  body.state_after_hash = digest('after');
  if (failing) body.gate_results.G1.confidence_interval_lower = 0.5;
  return body;
}

/** A POST /governance/execution body for the authorization leaf `parentLeafHash`. */
export function executionBody(
  tenant: number,
  request: number,
  execution: number,
  parentLeafHash: string,
): SubmitExecutionBody {
  return {
    parent_auth_leaf_hash: parentLeafHash,
    outcome: execution % DEVIATION_EVERY === 0 ? 'DEVIATED' : 'EXECUTED',
    executed_payload_hash: sha256Hex(`audit-fixture/${tenant}/${request}/payload`),
    execution_context: { runner: 'audit-fixture', attempt: 1 },
  };
}

function sha256Hex(text: string): string {
  return createHash('sha256').update(text).digest('hex');
}
