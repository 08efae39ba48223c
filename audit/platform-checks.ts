/**
 * The checks of one agent-platform leaf from its own data (AgentConfigVersioned, AgentPassportIssued,
 * AgentActionDecided): the event, its data and its record name the same tenant and agent; the stored
 * leaf hash is the leaf hash of the record; the record is signed by a trusted node key (current or
 * retired), as an evidence envelope's authority signature is checked. Pure.
 */
import { leafHashOfRecord } from '../domain/log';
import { type PlatformRecord, verifyPlatformRecord } from '../domain/platform/records';
import { toHex } from '../merkle-core';
import type { Finding } from './report';
import type { PreparedTrust } from './trust';

/** What every platform leaf event carries. */
export interface PlatformLeafData {
  agent_id: string;
  tenant_id: string;
  record: PlatformRecord;
  leaf_hash: string;
}

export interface PlatformLeafVerdict {
  findings: Finding[];
  leafHash: Uint8Array;
  /** Ed25519 signatures checked (1, or 0 when the node key is not trusted). */
  signatures: number;
}

export function checkPlatformLeaf(
  eventTenant: string,
  data: PlatformLeafData,
  trust: PreparedTrust,
): PlatformLeafVerdict {
  const { record } = data;
  const findings: Finding[] = [];
  const what = record.type;
  const tenants = [eventTenant, data.tenant_id, record.tenant_id];
  if (new Set(tenants).size !== 1)
    findings.push({
      check: 'tenant-mismatch',
      message: `the event, its data and the ${what} record name different tenants (${tenants.join(', ')})`,
    });
  if (data.agent_id !== record.agent_id)
    findings.push({
      check: 'subject-mismatch',
      message: `the data names agent ${data.agent_id}, the ${what} record ${record.agent_id}`,
    });
  const leafHash = leafHashOfRecord(record);
  const recomputed = toHex(leafHash);
  if (recomputed !== data.leaf_hash)
    findings.push({
      check: 'leaf-hash-mismatch',
      message: `leaf_hash ${data.leaf_hash} is not the leaf hash of the ${what} record (${recomputed}): the record or the stored hash was altered`,
    });
  const key = trust.authorities.get(record.node_id);
  if (!key) {
    findings.push({
      check: 'record-authority-unknown',
      message: `the ${what} record is signed by node ${record.node_id}, which is not among the trusted authority keys (add its key, current or retired, to the trust)`,
    });
    return { findings, leafHash, signatures: 0 };
  }
  const verified = verifyPlatformRecord(record, key);
  if (!verified.ok)
    findings.push({
      check: 'record-signature',
      message: `the node signature of ${record.node_id} does not verify over the ${what} record (${verified.problem}): the record or its signature was altered`,
    });
  return { findings, leafHash, signatures: 1 };
}
