import type { Request, Response } from 'express';
import type { GovernanceServices } from '../../../command-api/governance/services';
import { TENANT_KEY } from '../../../command-api/governance/tenants/access';
import { callerOf } from '../../../command-api/governance/tenants/auth';
import {
  governanceProjection,
  SUBJECTS,
  type SubjectView,
  subjectKey,
} from '../../../projectors/governance/governance-projection';
import type { TenantView } from '../../../projectors/governance/tenants';
import { sendInvalid } from '../../../runtime/http/errors';
import { invalid, json, notFound, schema } from '../../../runtime/http/openapi-parts';
import type { Route } from '../../../runtime/http/route-table';
import { accountView } from '../account/account-view';
import { sendNotFound } from '../not-found';

/** The longest subject id the status query takes. */
const SUBJECT_ID_MAX = 256;

export const statusReadRoutes: readonly Route<GovernanceServices>[] = [
  {
    method: 'get',
    path: '/governance/status',
    access: TENANT_KEY,
    query: [
      {
        name: 'subject_id',
        description: 'The subject to report on; without it, the most recently updated subject of the tenant.',
        schema: { type: 'string', minLength: 1, maxLength: SUBJECT_ID_MAX },
      },
    ],
    tags: ['governance'],
    operationId: 'getStatus',
    summary: 'Lifecycle, HCE observables, consecutive_fails and trial_leaves_remaining',
    responses: {
      '200': { description: 'The status.', content: json(schema('urn:gov:response:status')) },
      '400': invalid(
        `subject_id is empty, longer than ${SUBJECT_ID_MAX} characters or given more than once.`,
      ),
      '404': notFound('subject_id names no subject of this tenant.'),
    },
    handler: getStatus,
  },
];

function getStatus(services: GovernanceServices) {
  const { readModels } = services;
  return async (req: Request, res: Response) => {
    const { tenant } = callerOf(res);
    const subjectId = req.query.subject_id;
    if (
      subjectId !== undefined &&
      (typeof subjectId !== 'string' || subjectId.length === 0 || subjectId.length > SUBJECT_ID_MAX)
    ) {
      return sendInvalid(res, [
        {
          pointer: 'query/subject_id',
          reason: `must be one subject id of 1 to ${SUBJECT_ID_MAX} characters`,
        },
      ]);
    }
    const subject =
      typeof subjectId === 'string'
        ? await readModels.get<SubjectView>(
            governanceProjection,
            SUBJECTS,
            subjectKey(tenant.tenant_id, subjectId),
          )
        : (
            await readModels.find<SubjectView>(governanceProjection, SUBJECTS, {
              where: { tenant_id: tenant.tenant_id },
              sort: { field: 'updated_at', direction: 'desc' },
              limit: 1,
            })
          ).items[0];
    if (typeof subjectId === 'string' && !subject) return sendNotFound(res, 'subject', subjectId);
    const subjects = await readModels.count(governanceProjection, SUBJECTS, { tenant_id: tenant.tenant_id });
    res.json(statusView(tenant, subject?.data ?? null, subjects, services.clock()));
  };
}
function statusView(tenant: TenantView, subject: SubjectView | null, subjects: number, now: Date) {
  const account = accountView(tenant, now);
  return {
    tenant_id: tenant.tenant_id,
    tier: tenant.tier,
    subject_id: subject?.subject_id ?? null,
    lifecycle: subject?.lifecycle ?? null,
    observables: subject?.observables ?? null,
    consecutive_fails: subject?.consecutive_fails ?? 0,
    consecutive_breaches: subject?.consecutive_breaches ?? 0,
    subject_leaves: subject?.leaf_count ?? 0,
    subjects,
    trial_leaves_remaining: account.trial.leaves_remaining,
    trial: account.trial,
    leaves_today: account.limits.leaves_today,
    limits: account.limits,
  };
}
