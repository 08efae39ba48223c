/**
 * Everything that can be checked of one stored event on its own: it parses, matches its JSON Schemas,
 * and its type's own checks pass. These run in parallel (worker threads) over disjoint chunks; what
 * needs other events comes back as facts for the sequential checks. Pure apart from the CPU it burns.
 */
import { leafHashOfRecord, SHARED_LOG_NAME } from '../domain/log';
import {
  type EvidenceAdmitted,
  type ExecutionAdmitted,
  isKnownEventType,
  type LogAnchored,
  type LogCreated,
  type TenantPolicyChanged,
  type TreeHeadSigned,
  type VarianceRecorded,
  validateEnvelope,
  validateEventData,
} from '../event-schemas';
import { LEAF_RECORD_MEMBER, PLATFORM_LEAF_EVENT_TYPES } from '../projectors/log/log-sequencer';
import { checkLogAnchored } from './anchor-checks';
import { checkExecutionAdmitted, checkVarianceRecorded } from './closed-loop-checks';
import {
  type ChunkResultBuilder,
  type EventFacts,
  type EventVerdict,
  type Hce,
  type LinkFacts,
  type RawEventRow,
  treeHeadFacts,
} from './event-facts';
import { checkEvidenceAdmitted } from './evidence-checks';
import { checkLogEvent, logOfAdmission, logRowOf } from './log-checks';
import { checkPlatformLeaf, type PlatformLeafData } from './platform-checks';
import { checkTenantPolicyChanged } from './policy-checks';
import { discrepancyAt, type Finding } from './report';
import { checkTreeHeadSigned, isSharedHead } from './tree-head-checks';
import type { PreparedTrust } from './trust';

/**
 * What an audit checks: `all` (the default) every check; `log` the log structure alone — leaf records
 * to leaf hashes, ordering, every root and tree head — as a transparency-log monitor does (log-checks.ts).
 */
export type AuditScope = 'all' | 'log';

type AdmissionType = keyof typeof LEAF_RECORD_MEMBER;

const PLATFORM_LEAVES: ReadonlySet<string> = new Set(PLATFORM_LEAF_EVENT_TYPES);

function isAdmissionType(type: string): type is AdmissionType {
  return Object.hasOwn(LEAF_RECORD_MEMBER, type);
}

/** Where the link facts of checked leaves go (the checking thread's part of the link index). */
export interface LinkSink {
  add(position: number, eventId: string, hash: Uint8Array | null, link: LinkFacts): void;
}

/** Checks `rows` in order, adding their facts and findings to `result`. */
export async function checkRows(
  rows: readonly RawEventRow[],
  trust: PreparedTrust,
  links: LinkSink | null,
  scope: AuditScope,
  result: ChunkResultBuilder,
): Promise<void> {
  for (const row of rows) {
    const verdict =
      scope === 'log' ? await checkLogEvent(logRowOf(row), trust) : await checkEvent(row, trust);
    addVerdict(verdict, result);
    const { facts, link } = verdict;
    if (link && links) links.add(facts.position, facts.id, facts.leaf?.hash ?? null, link);
  }
}

/** Adds one event's facts, findings and signatures to a chunk's result. */
export function addVerdict({ facts, findings, signatures }: EventVerdict, result: ChunkResultBuilder): void {
  result.add(facts);
  result.signatures += signatures;
  for (const finding of findings) result.discrepancies.push(discrepancyAt(facts, finding));
}

export async function checkEvent(row: RawEventRow, trust: PreparedTrust): Promise<EventVerdict> {
  const [
    position,
    id,
    stream,
    revision,
    type,
    recorded_at,
    tenant_id,
    correlation_id,
    causation_id,
    schema_version,
  ] = row;
  const facts: EventFacts = { position, id, type, stream, revision };
  const findings: Finding[] = [];
  if (isAdmissionType(type)) facts.leaf = { hash: null };

  const parsed = parseData(row[10]);
  if (!parsed.ok) findings.push({ check: 'json-invalid', message: parsed.message });
  const data = parsed.ok ? parsed.value : {};

  const metadata = validateEnvelope({
    position,
    id,
    stream,
    revision,
    type,
    recorded_at,
    tenant_id,
    correlation_id,
    causation_id,
    schema_version,
    data,
  });
  if (!metadata.ok)
    findings.push({
      check: 'event-schema',
      message: `the event's metadata ${describeProblems(metadata.problems)}`,
    });
  if (!parsed.ok) return { facts, findings, link: null, signatures: 0 };
  if (facts.leaf) {
    // A log name that is not one fails the schema below; the leaf is then taken to be in the shared log.
    const log = logOfAdmission(type, data, []);
    if (log !== SHARED_LOG_NAME) facts.log = log;
  }

  if (!isKnownEventType(type)) {
    findings.push({
      check: 'unknown-event-type',
      message: `event type '${type}' is not one the service writes (a newer version, or an injected event)`,
    });
    return { facts, findings, link: null, signatures: 0 };
  }
  const validation = validateEventData(type, data);
  if (!validation.ok) {
    findings.push({
      check: 'event-schema',
      message: `the ${type} data ${describeProblems(validation.problems)}`,
    });
    // The tree still needs the leaf hash of whatever record was admitted.
    if (facts.leaf) facts.leaf.hash = leafHashOfLooseRecord(type as AdmissionType, data);
    return { facts, findings, link: null, signatures: 0 };
  }
  try {
    if (PLATFORM_LEAVES.has(type)) {
      const verdict = checkPlatformLeaf(tenant_id, data as PlatformLeafData, trust);
      findings.push(...verdict.findings);
      facts.leaf = { hash: verdict.leafHash };
      return { facts, findings, link: null, signatures: verdict.signatures };
    }
    const link = await checkTyped(type, tenant_id, data, facts, findings, trust);
    return { facts, findings, link, signatures: signaturesOf(type, data, trust) };
  } catch (error) {
    findings.push({
      check: 'check-failed',
      message: `the ${type} could not be checked: ${(error as Error).message}`,
    });
    if (facts.leaf) facts.leaf.hash = leafHashOfLooseRecord(type as AdmissionType, data);
    return { facts, findings, link: null, signatures: 0 };
  }
}

/** Ed25519 signatures a checked event of `type` covers: its votes and envelope, or its checkpoint. */
function signaturesOf(type: string, data: unknown, trust: PreparedTrust): number {
  if (type === 'TreeHeadSigned') return isSharedHead(data as TreeHeadSigned) ? 1 : 0;
  if (type !== 'EvidenceAdmitted') return 0;
  const { certificate, envelope } = data as EvidenceAdmitted;
  return certificate.votes.length + (trust.authorities.has(envelope.authority_node_id) ? 1 : 0);
}

/** The checks of the event's own type; fills in its facts and returns its link facts. */
async function checkTyped(
  type: string,
  eventTenant: string,
  data: unknown,
  facts: EventFacts,
  findings: Finding[],
  trust: PreparedTrust,
): Promise<LinkFacts | null> {
  switch (type) {
    case 'EvidenceAdmitted': {
      const evidence = data as EvidenceAdmitted;
      const verdict = checkEvidenceAdmitted(eventTenant, evidence, trust);
      findings.push(...verdict.findings);
      facts.leaf = { hash: verdict.leafHash };
      if (facts.log !== undefined) facts.binding = evidence.envelope.log_binding.log_id;
      return {
        kind: 'authorization',
        tenant: evidence.tenant_id,
        subject: evidence.subject_id,
        observables: hce(evidence.observables),
        policy: verdict.policyHash,
      };
    }
    case 'TenantPolicyChanged': {
      const verdict = checkTenantPolicyChanged(eventTenant, data as TenantPolicyChanged);
      findings.push(...verdict.findings);
      return verdict.link;
    }
    case 'ExecutionAdmitted': {
      const execution = data as ExecutionAdmitted;
      const verdict = checkExecutionAdmitted(eventTenant, execution);
      findings.push(...verdict.findings);
      facts.leaf = { hash: verdict.leafHash };
      return {
        kind: 'execution',
        tenant: execution.tenant_id,
        subject: execution.subject_id,
        parentAuth: execution.trace.parent_auth_leaf_hash,
        execState: hce(execution.trace.exec_state),
      };
    }
    case 'VarianceRecorded': {
      const variance = data as VarianceRecorded;
      const verdict = checkVarianceRecorded(eventTenant, variance);
      findings.push(...verdict.findings);
      const { record } = variance;
      facts.leaf = { hash: verdict.leafHash };
      return {
        kind: 'variance',
        tenant: variance.tenant_id,
        subject: variance.subject_id,
        parentAuth: record.parent_auth_leaf_hash,
        parentExec: record.parent_exec_leaf_hash,
        authState: hce(record.auth_state),
        execState: hce(record.exec_state),
      };
    }
    case 'LogAnchored': {
      const verdict = checkLogAnchored(data as LogAnchored);
      findings.push(...verdict.findings);
      facts.leaf = { hash: verdict.leafHash };
      facts.anchor = verdict.anchor;
      return null;
    }
    case 'LogCreated':
      facts.log_created = data as LogCreated;
      return null;
    case 'TreeHeadSigned': {
      const head = data as TreeHeadSigned;
      findings.push(...(await checkTreeHeadSigned(head, trust)));
      facts.tree_head = treeHeadFacts(head);
      return null;
    }
  }
  return null;
}

type Parsed = { ok: true; value: unknown } | { ok: false; message: string };

function parseData(text: unknown): Parsed {
  const source =
    typeof text === 'string' ? text : Buffer.isBuffer(text) ? text.toString('utf8') : String(text);
  try {
    return { ok: true, value: JSON.parse(source) };
  } catch (error) {
    return {
      ok: false,
      message: `the stored data is not valid JSON (${(error as Error).message}): the event was altered or truncated`,
    };
  }
}

/** The leaf hash of a record that failed its schema but is still JSON: the tree committed to it as is. */
function leafHashOfLooseRecord(type: AdmissionType, data: unknown): Uint8Array | null {
  const record = (data as Record<string, unknown> | null)?.[LEAF_RECORD_MEMBER[type]];
  if (record === null || typeof record !== 'object') return null;
  try {
    return leafHashOfRecord(record);
  } catch {
    return null;
  }
}

function hce(observables: { H: number; C: number; E: number }): Hce {
  return [observables.H, observables.C, observables.E];
}

function describeProblems(problems: readonly { pointer: string; reason: string }[]): string {
  return `does not match its schema: ${problems.map((p) => `${p.pointer || '/'} ${p.reason}`).join('; ')}`;
}
