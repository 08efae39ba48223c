import type { Request, Response } from 'express';
import { LOCKBOX_AFTER_FAILS } from '../../../domain/governance/lifecycle';
import { TIER_LIMITS } from '../../../domain/governance/tier-limits';
import type { SubmitEvidenceBody } from '../../../event-schemas';
import { MAX_UNAPPLIED_POSITIONS } from '../../../read-api/engine/read-barrier';
import { sendAnswer } from '../../../runtime/http/answer';
import {
  type DocumentSettings,
  duration,
  errorResponse,
  errorSchema,
  headerRef,
  invalid,
  json,
  schema,
} from '../../../runtime/http/openapi-parts';
import type { Route } from '../../../runtime/http/route-table';
import type { GovernanceServices } from '../services';
import { TENANT_KEY } from '../tenants/access';
import { callerOf } from '../tenants/auth';
import { admitEvidence } from './admit-evidence';

const TRIAL = TIER_LIMITS.L1.trial!;

/** An admission that waited its limit for a signed tree head (`awaitIntegration`), by what was stored. */
export const notYetSigned = (what: string) => (settings: DocumentSettings) =>
  errorResponse(
    `SERVICE_UNAVAILABLE (beyond the spec): ${what} stored but not under a signed tree head within ${duration(settings.integrationTimeoutMs)} (or, while the read models lag more than ${MAX_UNAPPLIED_POSITIONS} events behind, not yet applied by them). It is not lost: check GET /gov/v1/log/proof?leaf_hash=… before retrying, or the retry is admitted again.`,
    ['SERVICE_UNAVAILABLE'],
  );

/** The hottest write; most requests are answered before Express, by ./evidence-fast-path.ts. */
export const evidenceCommandRoutes: readonly Route<GovernanceServices>[] = [
  {
    method: 'post',
    path: '/governance/evidence',
    access: TENANT_KEY,
    body: { command: 'submit-evidence', description: 'The evidence submission (spec section 2).' },
    tags: ['governance'],
    operationId: 'submitEvidence',
    summary: 'Submit gate evidence for a decision about a subject',
    description:
      'Checks the tier allowances, the subject, then gates G1–G5 under the tenant policy in force (GET /governance/policy). G3 holds each protected metric to the lower of the policy’s maximum and the one the submission declares in G3 metric_maximums; a metric with either must be submitted. When every gate passes, a proof bundle is built, certified by a validator round, wrapped in a signed envelope and admitted to the log; the answer waits until the leaf is under a signed tree head.',
    responses: {
      '201': {
        description: 'Admitted: the leaf, the proof bundle and a signed tree head covering the leaf.',
        content: json(schema('urn:gov:response:evidence-admitted')),
      },
      '400': invalid('The body is not JSON or does not match the schema (each field in `fields`).'),
      '409': errorResponse(
        `TRIAL_EXHAUSTED: the Trial tenant has used its ${TRIAL.leafCap} leaves or its ${TRIAL.windowHours}-hour window has closed. SUBJECT_LOCKED (beyond the spec): the subject is LOCKBOX (${LOCKBOX_AFTER_FAILS} consecutive gate failures) or REJECTED (a tenant policy violation) and accepts no more evidence.`,
        ['TRIAL_EXHAUSTED', 'SUBJECT_LOCKED'],
      ),
      '422': {
        description:
          'GATE_FAILURE: one or more gates rejected the evidence; EVIDENCE_CLASS_INVALID: G4 evidence_class is not HOOKED, ATTESTED or INSTRUMENTED. The action is blocked and nothing is admitted.',
        content: json(schema('urn:gov:response:gate-failure')),
      },
      '429': {
        description:
          "RATE_LIMITED: the tier's requests per minute, or its leaves per UTC day (resetting at 00:00 UTC), are used up. Retry-After says when to retry.",
        headers: { 'Retry-After': headerRef('RetryAfter') },
        content: json(errorSchema(['RATE_LIMITED'])),
      },
      '500': errorResponse(
        'INTERNAL_ERROR: the validator round failed (nothing was admitted; retry with exponential backoff), or another internal error.',
        ['INTERNAL_ERROR'],
      ),
      '503': notYetSigned('the leaf is'),
    },
    handler: submitEvidence,
  },
];

function submitEvidence(services: GovernanceServices) {
  return async (req: Request, res: Response) => {
    const { tenant } = callerOf(res);
    const body = req.body as SubmitEvidenceBody;
    sendAnswer(res, await admitEvidence(services, tenant, body, res.locals.correlationId as string));
  };
}
