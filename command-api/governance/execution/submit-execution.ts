/**
 * Deciding `POST /governance/execution`: an execution trace against one of the tenant's authorization
 * leaves, and the variance between the two states. Both become leaves, appended in one append.
 */
import { buildExecutionTrace, computeVariance, execStateFor } from '../../../domain/governance/closed-loop';
import { evolveSubject } from '../../../domain/governance/lifecycle';
import { TIER_LIMITS } from '../../../domain/governance/tier-limits';
import { leafHashOfRecord } from '../../../domain/log';
import type {
  ExecutionAdmitted,
  Observables,
  SubmitExecutionBody,
  VarianceRecorded,
} from '../../../event-schemas';
import { toHex } from '../../../merkle-core';
import {
  logMember,
  subjectOf,
  type TenantDecision,
  type TenantState,
  tenantEvent,
} from '../tenants/tenant-state';

/** The authorization an execution refers to, as the read models know it. */
export interface ParentAuthorization {
  tenant_id: string;
  subject_id: string;
  leaf_hash: string;
  /** Observables of the subject when the authorization was admitted. */
  auth_state: Observables;
}

export type ExecutionOutcome =
  | {
      kind: 'admitted';
      /** The log both leaves go to (the tenant's now). */
      log: string;
      exec_leaf_hash: string;
      variance_leaf_hash: string;
      variance: VarianceRecorded['record'];
    }
  | {
      kind: 'refused';
      status: 400 | 403 | 409 | 422;
      error: 'TIER_INSUFFICIENT' | 'PARENT_AUTH_NOT_FOUND' | 'CONFLICT' | 'INVALID_REQUEST';
      message: string;
      pointer?: string;
    };

export function decideSubmitExecution(
  state: TenantState,
  body: SubmitExecutionBody,
  parent: ParentAuthorization | null,
  context: { now: Date; correlationId: string },
): TenantDecision<ExecutionOutcome> {
  const refuse = (result: Omit<Extract<ExecutionOutcome, { kind: 'refused' }>, 'kind'>) => ({
    events: [],
    result: { kind: 'refused' as const, ...result },
  });
  if (!TIER_LIMITS[state.tier].closedLoop) {
    return refuse({
      status: 403,
      error: 'TIER_INSUFFICIENT',
      message: 'closed-loop records need tier L2 or above',
    });
  }
  // A foreign leaf answers exactly like a missing one: tenants learn nothing about each other's leaves.
  if (!parent || parent.tenant_id !== state.tenant_id) {
    return refuse({
      status: 422,
      error: 'PARENT_AUTH_NOT_FOUND',
      message: `no authorization leaf ${body.parent_auth_leaf_hash} of this tenant; use the leaf_hash of an admitted POST /governance/evidence`,
    });
  }
  if (body.subject_id !== undefined && body.subject_id !== parent.subject_id) {
    return refuse({
      status: 400,
      error: 'INVALID_REQUEST',
      message: `subject_id must be the authorization's subject '${parent.subject_id}'`,
      pointer: '/subject_id',
    });
  }
  if (state.executed.has(parent.leaf_hash)) {
    return refuse({
      status: 409,
      error: 'CONFLICT',
      message: `authorization ${parent.leaf_hash} already has its execution; each authorization is executed once`,
    });
  }

  const at = context.now.toISOString();
  const trace = buildExecutionTrace({
    tenant_id: state.tenant_id,
    parent_auth_leaf_hash: parent.leaf_hash,
    subject_id: parent.subject_id,
    outcome: body.outcome,
    executed_payload_hash: body.executed_payload_hash,
    execution_context: body.execution_context,
    exec_state: execStateFor(body.outcome, parent.auth_state, body.exec_state),
    recorded_at: at,
  });
  const execLeafHash = toHex(leafHashOfRecord(trace));
  const record = computeVariance({
    tenant_id: state.tenant_id,
    subject_id: parent.subject_id,
    parent_auth_leaf_hash: parent.leaf_hash,
    parent_exec_leaf_hash: execLeafHash,
    auth_state: parent.auth_state,
    exec_state: trace.exec_state,
    recorded_at: at,
  });
  const varianceLeafHash = toHex(leafHashOfRecord(record));
  const before = subjectOf(state, parent.subject_id);
  const after = evolveSubject(before, {
    kind: 'variance',
    classification: record.classification,
    at,
  });
  const execution: ExecutionAdmitted = {
    tenant_id: state.tenant_id,
    subject_id: parent.subject_id,
    leaf_hash: execLeafHash,
    trace,
    ...logMember(state),
  };
  const variance: VarianceRecorded = {
    tenant_id: state.tenant_id,
    subject_id: parent.subject_id,
    leaf_hash: varianceLeafHash,
    record,
    observables: after.observables,
    previous_observables: before.observables,
    lifecycle: after.lifecycle,
    ...logMember(state),
  };
  return {
    events: [
      tenantEvent(state, context, 'ExecutionAdmitted', execution),
      tenantEvent(state, context, 'VarianceRecorded', variance),
    ],
    result: {
      kind: 'admitted',
      log: state.log,
      exec_leaf_hash: execLeafHash,
      variance_leaf_hash: varianceLeafHash,
      variance: record,
    },
  };
}
