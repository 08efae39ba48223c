/**
 * The checks of one ExecutionAdmitted or VarianceRecorded from its own data: identities, the stored
 * leaf hash and the variance arithmetic. Whether the parents exist, are earlier, belong to the same
 * tenant and carry the states the record starts from needs the other leaves: see link-index.ts. Pure.
 */
import { computeVariance } from '../domain/governance/closed-loop';
import { leafHashOfRecord } from '../domain/log';
import type { ExecutionAdmitted, VarianceRecord, VarianceRecorded } from '../event-schemas';
import { canonicalJson, toHex } from '../merkle-core';
import type { Finding } from './report';

export interface LeafVerdict {
  findings: Finding[];
  leafHash: Uint8Array;
}

export function checkExecutionAdmitted(eventTenant: string, data: ExecutionAdmitted): LeafVerdict {
  const { trace } = data;
  const findings = identityFindings('trace', eventTenant, data, trace);
  const leafHash = leafHashOfRecord(trace);
  findings.push(...leafHashFindings(data.leaf_hash, leafHash, 'execution trace'));
  return { findings, leafHash };
}

export function checkVarianceRecorded(eventTenant: string, data: VarianceRecorded): LeafVerdict {
  const { record } = data;
  const findings = identityFindings('variance record', eventTenant, data, record);
  const wrong = arithmeticErrors(record);
  if (wrong.length > 0)
    findings.push({
      check: 'variance-arithmetic',
      message: `recomputed from its auth_state and exec_state, the variance record's ${wrong.join(', ')} ${wrong.length === 1 ? 'is' : 'are'} wrong`,
    });
  const leafHash = leafHashOfRecord(record);
  findings.push(...leafHashFindings(data.leaf_hash, leafHash, 'variance record'));
  return { findings, leafHash };
}

/** The members of a variance record that differ from computeVariance over the record's own states. */
function arithmeticErrors(record: VarianceRecord): string[] {
  const expected = computeVariance({
    tenant_id: record.tenant_id,
    subject_id: record.subject_id,
    parent_auth_leaf_hash: record.parent_auth_leaf_hash,
    parent_exec_leaf_hash: record.parent_exec_leaf_hash,
    auth_state: record.auth_state,
    exec_state: record.exec_state,
    recorded_at: record.recorded_at,
  });
  const members = [
    'delta',
    'l2_distance',
    'classification',
    'drift_direction',
    'auth_in_omega',
    'exec_in_omega',
    'omega_breach',
  ] as const;
  return members.filter((m) => canonicalJson(expected[m]) !== canonicalJson(record[m]));
}

function identityFindings(
  what: string,
  eventTenant: string,
  data: { tenant_id: string; subject_id: string },
  record: { tenant_id: string; subject_id: string },
): Finding[] {
  const findings: Finding[] = [];
  const tenants = [eventTenant, data.tenant_id, record.tenant_id];
  if (new Set(tenants).size !== 1)
    findings.push({
      check: 'tenant-mismatch',
      message: `the event, its data and the ${what} name different tenants (${tenants.join(', ')})`,
    });
  if (data.subject_id !== record.subject_id)
    findings.push({
      check: 'subject-mismatch',
      message: `the data names subject ${data.subject_id}, the ${what} ${record.subject_id}`,
    });
  return findings;
}

function leafHashFindings(stored: string, recomputedHash: Uint8Array, what: string): Finding[] {
  const recomputed = toHex(recomputedHash);
  if (stored === recomputed) return [];
  return [
    {
      check: 'leaf-hash-mismatch',
      message: `leaf_hash ${stored} is not the leaf hash of the ${what} (${recomputed}): the record or the stored hash was altered`,
    },
  ];
}
