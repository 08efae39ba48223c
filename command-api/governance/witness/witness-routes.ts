import { type Request, type Response, Router } from 'express';
import type { SubmitWitnessSignatureBody } from '../../../event-schemas';
import { toHex } from '../../../merkle-core';
import { sendError, sendInvalid } from '../../../runtime/http/errors';
import { takesNoQuery } from '../../../runtime/http/query';
import { validateBody } from '../../../runtime/http/validate-body';
import type { GovernanceServices } from '../../../runtime/wiring/governance-services';
import {
  checkCosignature,
  cosignatureIn,
  identifyWitness,
  witnessCosignedEvent,
  witnessStream,
} from './witness-cosignature';

export const WITNESS_SIGNATURES_PATH = '/gov/v1/log/witness-signatures';

/**
 * `POST /gov/v1/log/witness-signatures`: a witness hands in its cosignature of a signed tree head.
 * No API key: the cosignature is the credential, and only the witness keys in GOV_WITNESS_KEYS count.
 * 400 for a malformed body, an untrusted key or a cosignature that does not verify over the checkpoint
 * the log signed at that size; 404 when no head was signed at that size; 200 once it is recorded and
 * served (a repeat answers 200 with the cosignature recorded first).
 */
export function witnessCommandRoutes(services: GovernanceServices): Router {
  const router = Router();

  router.post(
    WITNESS_SIGNATURES_PATH,
    takesNoQuery,
    validateBody('submit-witness-signature'),
    async (req: Request, res: Response) => {
      const body = req.body as SubmitWitnessSignatureBody;
      const trusted = services.config.witnessKeys;
      // The key is checked before any store read or signature check: untrusted senders cost little.
      const identified = identifyWitness(body.cosignature, trusted);
      if (!identified.ok) {
        sendInvalid(res, [identified.problem]);
        return;
      }
      const head = await services.log.treeHeadAt(body.tree_size);
      if (!head) {
        const latest = services.log.latest().sth.tree_size;
        sendError(
          res,
          404,
          'NOT_FOUND',
          `no tree head was signed at size ${body.tree_size}; the latest signed size is ${latest} (cosign the note served at GET /gov/v1/log/checkpoint)`,
        );
        return;
      }
      const check = await checkCosignature(body.cosignature, body.tree_size, head.checkpoint, trusted);
      if (!check.ok) {
        sendInvalid(res, [check.problem]);
        return;
      }
      const event = witnessCosignedEvent(check, res.locals.correlationId as string);
      const { position } = await services.eventStore.append(witnessStream(check.witnessKey), [event], {
        expectedRevision: 'any',
      });
      await services.awaitProjections(position, ['WitnessCosigned']);
      const served = await services.log.treeHeadAt(body.tree_size);
      const { witnessKey } = check;
      const recorded = served ? cosignatureIn(served.checkpoint, witnessKey) : undefined;
      if (!served || !recorded) {
        throw new Error(
          `the cosignature by ${witnessKey.name}+${toHex(witnessKey.keyId)} of size ${body.tree_size} was stored but is not served`,
        );
      }
      res.status(200).json({
        tree_size: body.tree_size,
        witness_key: witnessKey.text,
        timestamp: recorded.timestamp,
        cosignature: recorded.line,
        sth: served.sth,
      });
    },
  );

  return router;
}
