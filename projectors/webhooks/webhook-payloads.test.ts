import { createPublicKey, type KeyObject } from 'node:crypto';
import {
  type AdmissionContext,
  decideWithCertificate,
} from '../../command-api/governance/evidence/submit-evidence';
import { decideSubmitExecution } from '../../command-api/governance/execution/submit-execution';
import { type TenantState, tenantAggregate } from '../../command-api/governance/tenants/tenant-state';
import { authorityNodeIdOf } from '../../domain/governance/envelope';
import { buildComplianceReport } from '../../domain/governance/report';
import { ed25519Keys, NOW, validBody } from '../../domain/governance/test-fixtures';
import { createLocalValidators } from '../../domain/governance/validators';
import {
  type EvidenceAdmitted,
  type ExecutionAdmitted,
  type GateFailed,
  type SubmitExecutionBody,
  type VarianceRecorded,
  validateWebhookPayload,
  type WebhookEventName,
} from '../../event-schemas';
import {
  CHAIN_DEPTH_COUNTS,
  MAX_WEBHOOK_BODY_BYTES,
  WEBHOOK_EVENT_NAMES,
  webhookEventId,
  webhookLinks,
} from './webhook-events';
import {
  type CoveringHead,
  chainDepthMilestonePayload,
  complianceReportReadyPayload,
  evidenceSource,
  executionTraceAdmittedPayload,
  type FullWebhookPayload,
  gateFailPayload,
  governanceBreachPayload,
  leafAdmittedPayload,
  observablesAlertPayload,
  renderComplianceReportReady,
  serializeWebhookBody,
  TRIMMED_FIELDS,
  trimWebhookPayload,
  varianceRecordedPayload,
  varianceSource,
} from './webhook-payloads';

const PUBLIC_URL = 'https://gov.example';
const links = webhookLinks(PUBLIC_URL);
const TENANT_ID = `ten_${'1'.repeat(24)}`;
const EVT = `evt_${'e'.repeat(32)}`;
const HEAD: CoveringHead = {
  tree_size: 42,
  root_hash: 'c'.repeat(64),
  timestamp: '2025-06-01T12:00:05.000Z',
};
const [authorityKey, ...validatorKeys] = ed25519Keys(5) as [KeyObject, ...KeyObject[]];
const context: AdmissionContext = {
  now: new Date(NOW),
  correlationId: 'payload-tests',
  validators: createLocalValidators(validatorKeys),
  authority: { privateKey: authorityKey, nodeId: authorityNodeIdOf(createPublicKey(authorityKey)) },
  logBinding: () => ({ log_id: 'gov.example/log+1a2b3c4d+AQID', log_url: `${PUBLIC_URL}/gov/v1/log` }),
  replayUrl: links.replay,
};

function tenant(): TenantState {
  return { ...tenantAggregate.initial(), exists: true, tenant_id: TENANT_ID, tier: 'L2', registered_at: NOW };
}

/** Real domain events from the command deciders: an admission, a gate failure, an execution and its variance. */
async function domainEvents(execution: Partial<SubmitExecutionBody> = {}) {
  const admission = await decideWithCertificate(tenant(), validBody(), context);
  const admitted = admission.events[0]!.data as EvidenceAdmitted;
  const state = tenantAggregate.evolve(tenant(), admission.events[0]!);
  const failing = validBody();
  failing.gate_results.G1.confidence_interval_lower = 0.5;
  const failed = (await decideWithCertificate(state, failing, context)).events[0]!.data as GateFailed;
  const closedLoop = decideSubmitExecution(
    state,
    { parent_auth_leaf_hash: admitted.leaf_hash, outcome: 'FAILED', ...execution },
    {
      tenant_id: TENANT_ID,
      subject_id: admitted.subject_id,
      leaf_hash: admitted.leaf_hash,
      auth_state: admitted.observables,
    },
    context,
  );
  const [exec, variance] = closedLoop.events.map((event) => event.data) as [
    ExecutionAdmitted,
    VarianceRecorded,
  ];
  return { admitted, failed, exec, variance };
}

/** One full payload of every webhook event, from the same domain events. */
async function everyPayload(): Promise<{ [N in WebhookEventName]: FullWebhookPayload<N> }> {
  const { admitted, failed, exec, variance } = await domainEvents();
  const id = (name: WebhookEventName) => webhookEventId('source-event', name);
  return {
    leaf_admitted: leafAdmittedPayload(id('leaf_admitted'), evidenceSource(admitted), 40, links),
    gate_fail: gateFailPayload(id('gate_fail'), failed),
    compliance_report_ready: complianceReportReadyPayload(
      id('compliance_report_ready'),
      admitted,
      40,
      HEAD,
      links,
    ),
    execution_trace_admitted: executionTraceAdmittedPayload(id('execution_trace_admitted'), exec, 41),
    variance_recorded: varianceRecordedPayload(id('variance_recorded'), varianceSource(variance), 42),
    governance_breach: governanceBreachPayload(id('governance_breach'), varianceSource(variance))!,
    chain_depth_milestone: chainDepthMilestonePayload(
      id('chain_depth_milestone'),
      admitted,
      10,
      40,
      links,
      CHAIN_DEPTH_COUNTS,
    ),
    observables_alert: observablesAlertPayload(id('observables_alert'), {
      tenant_id: TENANT_ID,
      subject_id: failed.subject_id,
      previous: { H: 0.4, C: 0.425, E: 0.6 },
      observables: { H: 0.38, C: 0.41, E: 0.62 },
      lifecycle: failed.lifecycle,
      trigger: 'GateFailed',
      at: failed.failed_at,
    })!,
  };
}

function expectValid(name: WebhookEventName, payload: unknown): void {
  const result = validateWebhookPayload(name, payload);
  expect(result.ok ? [] : result.problems).toEqual([]);
}

describe('webhook payloads', () => {
  it('given an admitted bundle integrated at a leaf, then leaf_admitted carries the leaf, the envelope and the replay url', async () => {
    const { admitted } = await domainEvents();
    const payload = leafAdmittedPayload(EVT, evidenceSource(admitted), 40, links);
    expect(payload).toEqual({
      type: 'leaf_admitted',
      event_id: EVT,
      tenant_id: TENANT_ID,
      leaf_index: 40,
      leaf_hash: admitted.leaf_hash,
      admitted_at: admitted.admitted_at,
      subject_id: admitted.subject_id,
      replay_url: `${PUBLIC_URL}/governance/replay/${admitted.artifact_hash}`,
      artifact_hash: admitted.artifact_hash,
      envelope: admitted.envelope,
    });
    expect(payload.envelope.type).toBe('GOV_GOVERNANCE_ENVELOPE_V1');
  });

  it('given the 10th authorization leaf, then chain_depth_milestone says the depth and what it counts; without `counts` (a delivery queued before it) the body is the older one, also valid', async () => {
    const { admitted } = await domainEvents();
    const payload = chainDepthMilestonePayload(EVT, admitted, 10, 40, links, CHAIN_DEPTH_COUNTS);
    expect(payload).toMatchObject({ depth: 10, counts: 'authorization_leaves', leaf_index: 40 });
    expectValid('chain_depth_milestone', payload);
    const older = chainDepthMilestonePayload(EVT, admitted, 10, 40, links, undefined);
    // the older bytes: the same members in the same order, but counts
    expect(JSON.stringify(older)).toBe(
      JSON.stringify(payload).replace(',"counts":"authorization_leaves"', ''),
    );
    expect(older).not.toHaveProperty('counts');
    expectValid('chain_depth_milestone', older);
    expect(validateWebhookPayload('chain_depth_milestone', { ...payload, counts: 'leaves' }).ok).toBe(false);
  });

  it('given a gate failure, then gate_fail carries the failed gates, their reasons and the blocked action', async () => {
    const { failed } = await domainEvents();
    expect(gateFailPayload(EVT, failed)).toEqual({
      type: 'gate_fail',
      event_id: EVT,
      tenant_id: TENANT_ID,
      subject_id: failed.subject_id,
      gates_failed: ['G1'],
      details: failed.details,
      action: 'ACTION_BLOCKED',
      failed_at: failed.failed_at,
    });
  });

  it('given a FAILED execution, then its variance is a governance breach with the authorization context; a NOMINAL one is none', async () => {
    const { admitted, exec, variance } = await domainEvents();
    const breach = governanceBreachPayload(EVT, varianceSource(variance));
    expect(breach).toMatchObject({
      auth_leaf_hash: admitted.leaf_hash,
      exec_leaf_hash: exec.leaf_hash,
      variance_leaf_hash: variance.leaf_hash,
      classification: 'BREACH',
      omega_breach: true,
      drift_direction: { H: 'degraded', C: 'degraded', E: 'degraded' },
      recorded_at: variance.record.recorded_at,
      record: variance.record,
    });
    const nominal = (await domainEvents({ outcome: 'EXECUTED' })).variance;
    expect(nominal.record.classification).toBe('NOMINAL');
    expect(governanceBreachPayload(EVT, varianceSource(nominal))).toBeNull();
  });

  it('given observables that stay in Ω, then there is no observables_alert', () => {
    const change = {
      tenant_id: TENANT_ID,
      subject_id: 'model-7',
      previous: { H: 0.5, C: 0.5, E: 0.5 },
      observables: { H: 0.48, C: 0.485, E: 0.52 },
      lifecycle: 'ACTIVE' as const,
      trigger: 'GateFailed' as const,
      at: NOW,
    };
    expect(observablesAlertPayload(EVT, change)).toBeNull();
  });

  it('given every webhook event, then its full payload and its trimmed summary validate against its schema', async () => {
    const payloads = await everyPayload();
    for (const name of WEBHOOK_EVENT_NAMES) {
      const payload = payloads[name] as FullWebhookPayload<WebhookEventName>;
      expect(payload.type).toBe(name);
      expectValid(name, payload);
      expectValid(name, JSON.parse(serializeWebhookBody(name, payload, links).body));
      const trimmed = trimWebhookPayload(name, payload, MAX_WEBHOOK_BODY_BYTES + 1, links);
      expectValid(name, trimmed);
      expect(trimmed).toMatchObject({
        type: name,
        event_id: payload.event_id,
        tenant_id: TENANT_ID,
        trimmed: true,
        original_bytes: MAX_WEBHOOK_BODY_BYTES + 1,
        url: expect.stringMatching(/^https:\/\/gov\.example\//),
      });
      const kept = (from: object) =>
        Object.fromEntries(Object.entries(from).filter(([k]) => k !== 'trimmed'));
      for (const field of TRIMMED_FIELDS[name] as readonly string[]) {
        expect(kept(trimmed)[field]).toEqual(kept(payload)[field]);
      }
    }
  });

  it('given the report notice, when it is rendered with or without the full report, then both bodies validate', async () => {
    const { admitted } = await domainEvents();
    const notice = complianceReportReadyPayload(EVT, admitted, 40, HEAD, links);
    expect(notice).toMatchObject({
      report_type: 'GOV_COMPLIANCE_REPORT_V1',
      report_url: `${PUBLIC_URL}/governance/report/${admitted.artifact_hash}`,
      tree_size: 42,
      root_hash: HEAD.root_hash,
      generated_at: HEAD.timestamp,
    });
    expect(JSON.parse(renderComplianceReportReady(notice, null, links))).toEqual(notice);
    const report = buildComplianceReport({
      bundle: admitted.bundle,
      gate_details: admitted.gate_details,
      certificate: admitted.certificate,
      envelope: admitted.envelope,
      leaf_index: 40,
      log: { name: 'shared', url: `${PUBLIC_URL}/gov/v1/log` },
      sth: {
        log_id: context.logBinding('shared').log_id,
        ...HEAD,
        log_signature: 'c2lnbmF0dXJl',
        witness_signatures: [],
      },
      inclusion_proof: { leaf_index: 40, tree_size: 42, audit_path: ['d'.repeat(64)] },
      lifecycle: admitted.lifecycle,
      observables: admitted.observables,
      admitted_at: admitted.admitted_at,
      replay_url: links.replay(admitted.artifact_hash),
    });
    const rendered = JSON.parse(renderComplianceReportReady(notice, report, links));
    expect(rendered).toEqual({ ...notice, report });
    expectValid('compliance_report_ready', rendered);
  });

  describe('the 128 KB limit', () => {
    /** A gate_fail whose serialized body is exactly `bytes` bytes long (é is two bytes in UTF-8). */
    async function gateFailOf(bytes: number) {
      const { failed } = await domainEvents();
      const base = gateFailPayload(EVT, { ...failed, details: { G1: '' } });
      const room = bytes - Buffer.byteLength(JSON.stringify(base));
      const details = { G1: `${'é'.repeat(Math.floor(room / 2))}${'e'.repeat(room % 2)}` };
      const payload = gateFailPayload(EVT, { ...failed, details });
      expect(Buffer.byteLength(JSON.stringify(payload))).toBe(bytes);
      return payload;
    }

    it('given a body of exactly 131072 bytes, then it is sent whole', async () => {
      const payload = await gateFailOf(MAX_WEBHOOK_BODY_BYTES);
      const serialized = serializeWebhookBody('gate_fail', payload, links);
      expect(serialized).toEqual({
        body: JSON.stringify(payload),
        bytes: MAX_WEBHOOK_BODY_BYTES,
        trimmed: false,
      });
    });

    it('given a body of 131073 bytes, then the summary is sent, with the original size and where to read the rest', async () => {
      const payload = await gateFailOf(MAX_WEBHOOK_BODY_BYTES + 1);
      const serialized = serializeWebhookBody('gate_fail', payload, links);
      expect(serialized.trimmed).toBe(true);
      expect(serialized.bytes).toBeLessThan(1024);
      const body = JSON.parse(serialized.body);
      expect(body).toEqual({
        type: 'gate_fail',
        event_id: EVT,
        tenant_id: TENANT_ID,
        subject_id: payload.subject_id,
        gates_failed: ['G1'],
        action: 'ACTION_BLOCKED',
        failed_at: payload.failed_at,
        trimmed: true,
        original_bytes: MAX_WEBHOOK_BODY_BYTES + 1,
        url: `${PUBLIC_URL}/governance/status?subject_id=${payload.subject_id}`,
      });
      expectValid('gate_fail', body);
    });

    it('given an execution trace with a huge context, then execution_trace_admitted is trimmed to the leaf and its link', async () => {
      const { exec } = await domainEvents({ execution_context: { log: 'x'.repeat(200_000) } });
      const payload = executionTraceAdmittedPayload(EVT, exec, 41);
      const serialized = serializeWebhookBody('execution_trace_admitted', payload, links);
      expect(serialized.trimmed).toBe(true);
      const body = JSON.parse(serialized.body);
      expect(body).toMatchObject({
        leaf_index: 41,
        leaf_hash: exec.leaf_hash,
        parent_auth_leaf_hash: exec.trace.parent_auth_leaf_hash,
        original_bytes: Buffer.byteLength(JSON.stringify(payload)),
        url: `${PUBLIC_URL}/gov/v1/log/leaf?index=41`,
      });
      expect(body).not.toHaveProperty('trace');
      expectValid('execution_trace_admitted', body);
    });
  });
});
