import type { Request, Response } from 'express';
import { LOG_NAME, logUrlOf, SHARED_LOG_NAME } from '../../../domain/log';
import type { SubmitWitnessSignatureBody } from '../../../event-schemas';
import { toHex } from '../../../merkle-core';
import type { LogName, PublishedLog } from '../../../ports/log';
import { sendError, sendInvalid } from '../../../runtime/http/errors';
import { namedLog } from '../../../runtime/http/named-log';
import { invalid, json, logHeadsBehind, notFound, schema } from '../../../runtime/http/openapi-parts';
import { PUBLIC, type Route } from '../../../runtime/http/route-table';
import type { GovernanceServices } from '../services';
import {
  checkCosignature,
  cosignatureIn,
  decideRecordCosignature,
  identifyWitness,
  witnessStream,
} from './witness-cosignature';

export const WITNESS_SIGNATURES_PATH = '/gov/v1/log/witness-signatures';

const DESCRIPTION = [
  'A witness (e.g. `gov witness`) that checked the checkpoint signed at tree_size against the last one it cosigned (C2SP tlog-witness: log signature and consistency proof) sends its cosignature/v1 signature line (C2SP tlog-cosignature). No API key: only cosignatures by the witness keys the operator trusts (GOV_WITNESS_KEYS, comma-separated note verifier keys) are accepted, and only when they verify over the checkpoint the log signed at that size.',
  '',
  'An accepted cosignature is recorded (event WitnessCosigned) and served from then on: in `witness_signatures` of the log’s GET …/sth for that size, and as a signature line after the log’s in the checkpoint note (GET …/checkpoint while that size is the latest). A witness key keeps one cosignature per log and tree size: sending another for the same size (a retry, or a new timestamp) answers 200 with the one recorded first.',
].join('\n');

const RESPONSES = {
  '200': {
    description: 'The cosignature is recorded and served.',
    content: json(schema('urn:gov:response:witness-signature')),
  },
  '400': invalid(
    'The body is not JSON or does not match the schema, or the cosignature (pointer `/cosignature`) is not a signature line, is by a witness key not in GOV_WITNESS_KEYS, or does not verify over the checkpoint the log signed at tree_size.',
  ),
  '404': notFound('No tree head was signed at tree_size.'),
  '503': logHeadsBehind,
};

/**
 * `POST /gov/v1/log/witness-signatures` (the shared log) and `POST /gov/v1/logs/:log/witness-signatures`
 * (any log): a witness hands in its cosignature of a signed tree head of that log.
 * No API key: the cosignature is the credential, and only the witness keys in GOV_WITNESS_KEYS count.
 * 400 for a malformed body, an untrusted key or a cosignature that does not verify over the checkpoint
 * the log signed at that size; 404 when no head was signed at that size (or no log has that name); 200
 * once it is recorded and served (a repeat answers 200 with the cosignature recorded first).
 */
export const witnessCommandRoutes: readonly Route<GovernanceServices>[] = [
  {
    method: 'post',
    path: WITNESS_SIGNATURES_PATH,
    access: PUBLIC,
    body: { command: 'submit-witness-signature', description: 'The tree size and the cosignature line.' },
    tags: ['log'],
    operationId: 'submitWitnessSignature',
    summary: 'Hand in a witness cosignature of a signed tree head',
    description: DESCRIPTION,
    responses: RESPONSES,
    handler: (services) => {
      const submit = submitWitnessSignature(services);
      return (req, res) => submit({ name: SHARED_LOG_NAME, log: services.log }, req, res);
    },
  },
  {
    method: 'post',
    path: '/gov/v1/logs/:log/witness-signatures',
    access: PUBLIC,
    params: [
      {
        name: 'log',
        description:
          "The log's name: `shared`, `test` or `dedicated-<24 hex>` (GET /gov/v1/logs lists them).",
        schema: { type: 'string', pattern: LOG_NAME.source },
      },
    ],
    body: { command: 'submit-witness-signature', description: 'The tree size and the cosignature line.' },
    tags: ['log'],
    operationId: 'submitWitnessSignatureOfLog',
    summary: 'Hand in a witness cosignature of a signed tree head, of the log named',
    description: DESCRIPTION,
    responses: {
      ...RESPONSES,
      '404': notFound(
        'No log has this name (GET /gov/v1/logs lists them), or it has no signed tree head yet; or no tree head was signed at tree_size.',
      ),
    },
    handler: (services) => {
      const submit = submitWitnessSignature(services);
      return async (req, res) => {
        const name = req.params.log as string;
        const log = await namedLog(services.logs, name, res);
        if (log) await submit({ name, log }, req, res);
      };
    },
  },
];

function submitWitnessSignature(services: GovernanceServices) {
  return async ({ name, log }: { name: LogName; log: PublishedLog }, req: Request, res: Response) => {
    const body = req.body as SubmitWitnessSignatureBody;
    const trusted = services.config.witnessKeys;
    // The key is checked before any store read or signature check: untrusted senders cost little.
    const identified = identifyWitness(body.cosignature, trusted);
    if (!identified.ok) {
      sendInvalid(res, [identified.problem]);
      return;
    }
    // The log's own paths (relative to the server), for the messages.
    const logPath = logUrlOf('', name);
    const head = await log.treeHeadAt(body.tree_size);
    if (!head) {
      const latest = log.latest().sth.tree_size;
      sendError(
        res,
        404,
        'NOT_FOUND',
        `no tree head was signed at size ${body.tree_size}; the latest signed size is ${latest} (cosign the note served at GET ${logPath}/checkpoint)`,
      );
      return;
    }
    const check = await checkCosignature(body.cosignature, body.tree_size, head.checkpoint, trusted, logPath);
    if (!check.ok) {
      sendInvalid(res, [check.problem]);
      return;
    }
    const correlationId = res.locals.correlationId as string;
    const { position } = await services.witnesses.execute(witnessStream(check.witnessKey), (state) =>
      decideRecordCosignature(state, check, correlationId, name),
    );
    // A recorded cosignature always appends (a repeat of its id is the store's to keep once).
    await services.awaitProjections(position as number, ['WitnessCosigned']);
    const served = await log.treeHeadAt(body.tree_size);
    const { witnessKey } = check;
    const recorded = served ? cosignatureIn(served.checkpoint, witnessKey) : undefined;
    if (!served || !recorded) {
      throw new Error(
        `the cosignature by ${witnessKey.name}+${toHex(witnessKey.keyId)} of size ${body.tree_size} of log ${name} was stored but is not served`,
      );
    }
    res.status(200).json({
      tree_size: body.tree_size,
      witness_key: witnessKey.text,
      timestamp: recorded.timestamp,
      cosignature: recorded.line,
      sth: { log: name, ...served.sth },
    });
  };
}
