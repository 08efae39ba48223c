/**
 * `POST /governance/evidence` answered before Express (runtime/http/json-post-fast-path.ts says when a
 * route may have a fast path, and what it hands back to Express). What it answers itself, the decision
 * and its leaf, comes from `admitEvidence`, which the Express route answers from too.
 */

import type http from 'node:http';
import type { SubmitEvidenceBody } from '../../../event-schemas';
import { serverErrorAnswer } from '../../../runtime/http/errors';
import { jsonPostFastPath } from '../../../runtime/http/json-post-fast-path';
import { bodyProblems } from '../../../runtime/http/validate-body';
import type { GovernanceServices } from '../services';
import { findKeyHolder } from '../tenants/auth';
import { spendRequest } from '../tenants/request-rate';
import { admitEvidence } from './admit-evidence';

const PATH = '/governance/evidence';

/**
 * Returns true when it took the request (it then answers it, or hands it to `express` itself); false
 * leaves the request to the next handler untouched.
 */
export function evidenceFastPath(
  services: GovernanceServices,
  express: (req: http.IncomingMessage, res: http.ServerResponse) => void,
) {
  return jsonPostFastPath(
    {
      maxBodyBytes: services.config.maxBodyBytes,
      logger: services.logger,
      durations: services.metrics.httpRequests,
    },
    {
      route: PATH,
      match: (url) => (url === PATH ? {} : null),
      answer: async (req, body, _params, correlationId) => {
        const caller = await findKeyHolder(services, req.headers.authorization, services.recentKeys);
        // Validation before the rate allowance: a request Express answers is counted there, once.
        if (
          !caller ||
          bodyProblems('submit-evidence', body) ||
          spendRequest(services, caller.tenant) !== null
        )
          return null;
        return admitEvidence(services, caller.tenant, body as SubmitEvidenceBody, correlationId);
      },
      failed: serverErrorAnswer,
    },
    express,
  );
}
