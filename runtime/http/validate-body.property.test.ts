/**
 * Properties of the HTTP body validation in front of every command: for any JSON value a client can
 * send (and for no body at all), it either passes a body its command's schema accepts to the handler or
 * answers one 400 INVALID_REQUEST naming the offending fields; it never throws.
 */
import type { NextFunction, Request, Response } from 'express';
import fc from 'fast-check';
import { PROPERTY_OPTIONS } from '../../command-api/governance/property-support';
import { type CommandName, validateCommand, validateResponse } from '../../event-schemas';
import { commandSchemas } from '../../event-schemas/governance';
import { hostileBody, validCommandBody } from '../../event-schemas/schema-arbitrary';
import { canonicalJson } from '../../merkle-core';
import { validateBody } from './validate-body';

const COMMANDS = Object.keys(commandSchemas) as CommandName[];

/** A value wrapped `depth` times in objects or arrays: deeper than any schema, as deep as a 256 KiB body allows. */
const deepArb = fc
  .tuple(fc.integer({ min: 1, max: 5_000 }), fc.boolean(), fc.jsonValue({ maxDepth: 1 }))
  .map(([depth, arrays, leaf]) => {
    let value: unknown = leaf;
    for (let i = 0; i < depth; i++) value = arrays ? [value] : { execution_context: value };
    return value;
  });

/** A valid execution whose free-form execution_context nests arbitrarily deep. */
const deepExecutionArb = fc
  .tuple(validCommandBody('submit-execution') as fc.Arbitrary<Record<string, unknown>>, deepArb)
  .map(([body, context]) => ({ ...body, execution_context: { context } }));

/** What a parsed request body can be: any JSON, near-misses of each command, very deep nesting, none. */
const bodyArb = (command: CommandName) =>
  fc.oneof(
    hostileBody(command),
    deepArb,
    command === 'submit-execution' ? deepExecutionArb : deepArb,
    fc.constant(undefined),
    fc.jsonValue({ maxDepth: 6 }),
  );

/**
 * Deepest nesting a body passed on may have: events carry it inside the stores' own documents, and
 * MongoDB refuses documents nested deeper than 100 levels (SQLite's JSON functions, 1000).
 */
const STORABLE_DEPTH = 64;

/** Levels of objects and arrays, counted without recursion (the value may be deeper than the stack). */
function depthOf(value: unknown): number {
  let deepest = 0;
  const pending: Array<[unknown, number]> = [[value, 0]];
  while (pending.length > 0) {
    const [node, depth] = pending.pop()!;
    if (node === null || typeof node !== 'object') continue;
    deepest = Math.max(deepest, depth + 1);
    for (const child of Object.values(node)) pending.push([child, depth + 1]);
  }
  return deepest;
}

interface Answer {
  status?: number;
  body?: unknown;
  next: boolean;
}

/** Runs the middleware on a body with a minimal Express request and response. */
function run(command: CommandName, body: unknown): Answer {
  const answer: Answer = { next: false };
  const res = {
    locals: { correlationId: 'corr-property' },
    status(code: number) {
      answer.status = code;
      return this;
    },
    json(payload: unknown) {
      answer.body = payload;
      return this;
    },
  } as unknown as Response;
  validateBody(command)({ body } as Request, res, (() => {
    answer.next = true;
  }) as NextFunction);
  return answer;
}

describe('validateBody', () => {
  it.each(COMMANDS)(
    'given any JSON value as the %s body, then it never throws and either passes a schema-valid body on or answers one 400 listing the fields',
    (command) => {
      fc.assert(
        fc.property(bodyArb(command), (body) => {
          const answer = run(command, body);
          if (answer.next) {
            expect(answer.status).toBeUndefined();
            expect(validateCommand(command, body).ok).toBe(true);
            expect(depthOf(body)).toBeLessThanOrEqual(STORABLE_DEPTH);
            expect(() => canonicalJson(body)).not.toThrow();
            return;
          }
          expect(answer.status).toBe(400);
          expect(validateResponse('error', answer.body).ok).toBe(true);
          const { error, fields } = answer.body as { error: string; fields: { pointer: string }[] };
          expect(error).toBe('INVALID_REQUEST');
          expect(fields.length).toBeGreaterThan(0);
          for (const { pointer } of fields) expect(pointer).toMatch(/^(\/|$)/);
        }),
        { ...PROPERTY_OPTIONS, numRuns: 150 },
      );
    },
  );

  it.each(COMMANDS)(
    'given a %s body with a lone UTF-16 surrogate in any string or member name, then 400 naming exactly that place',
    (command) => {
      fc.assert(
        fc.property(plantedSurrogateArb(command), ({ body, pointer }) => {
          const answer = run(command, body);
          expect(answer.next).toBe(false);
          expect(answer.status).toBe(400);
          expect(validateResponse('error', answer.body).ok).toBe(true);
          const { fields } = answer.body as { fields: { pointer: string; reason: string }[] };
          expect(fields).toEqual([{ pointer, reason: expect.stringContaining('lone UTF-16 surrogate') }]);
        }),
        { ...PROPERTY_OPTIONS, numRuns: 100 },
      );
    },
  );
});

/**
 * A valid body with one lone surrogate planted (as a JSON `\ud800` escape parses) in one of its string
 * values or in the name of a new member of one of its objects, and the pointer to that place.
 */
function plantedSurrogateArb(command: CommandName) {
  return fc
    .tuple(
      validCommandBody(command) as fc.Arbitrary<Record<string, unknown>>,
      fc.nat(),
      fc.constantFrom('\ud800', '\udbff', '\udc00', '\udfff'),
      fc.boolean(),
    )
    .map(([valid, pick, lone, inName]) => {
      const body = structuredClone(valid);
      const strings: { parent: Record<string, unknown>; key: string; pointer: string }[] = [];
      const objects: { node: Record<string, unknown>; pointer: string }[] = [];
      const walk = (node: unknown, pointer: string) => {
        if (node === null || typeof node !== 'object') return;
        if (!Array.isArray(node)) objects.push({ node: node as Record<string, unknown>, pointer });
        for (const [key, child] of Object.entries(node)) {
          const at = `${pointer}/${key.replaceAll('~', '~0').replaceAll('/', '~1')}`;
          if (typeof child === 'string')
            strings.push({ parent: node as Record<string, unknown>, key, pointer: at });
          else walk(child, at);
        }
      };
      walk(body, '');
      if (inName || strings.length === 0) {
        const { node, pointer } = objects[pick % objects.length]!;
        node[`name${lone}`] = 1;
        return { body, pointer: `${pointer}/name${lone}` };
      }
      const { parent, key, pointer } = strings[pick % strings.length]!;
      parent[key] = `a${lone}b`;
      return { body, pointer };
    });
}
