/**
 * Generates `generated/types.ts` from the JSON Schemas, so TypeScript types cannot drift from what is
 * validated: `npm run schemas` rewrites it, and a test fails when the committed file is stale.
 */
import fs from 'node:fs';
import path from 'node:path';
import { compile } from 'json-schema-to-typescript';
import { commandSchemas, eventSchemas, recordSchemas, webhookSchemas } from './governance';
import { platformRecordSchemas } from './platform';

/** Records of both services, the clearinghouse's first. */
const allRecordSchemas = [...Object.values(recordSchemas), ...Object.values(platformRecordSchemas)];

export const GENERATED_TYPES_FILE = path.join(__dirname, 'generated', 'types.ts');

export async function generateTypes(): Promise<string> {
  const parts = [
    '/* Generated from event-schemas/schemas by `npm run schemas`. Do not edit by hand. */',
    '/* eslint-disable */',
    '',
  ];
  const commandTypes: Record<string, string> = {};
  const eventTypes: Record<string, string> = {};
  const webhookTypes: Record<string, string> = {};
  for (const schema of allRecordSchemas) await emit(schema, parts);
  for (const [name, schema] of Object.entries(commandSchemas)) commandTypes[name] = await emit(schema, parts);
  for (const [type, schema] of Object.entries(eventSchemas)) eventTypes[type] = await emit(schema, parts);
  for (const [name, schema] of Object.entries(webhookSchemas)) webhookTypes[name] = await emit(schema, parts);
  parts.push(mapType('CommandBodies', 'Request body type of each command.', commandTypes));
  parts.push(mapType('EventPayloads', 'Payload (`data`) type of each domain event.', eventTypes));
  parts.push(
    unionType('GovernanceEvent', 'Each domain event: switching on `type` narrows `data`.', eventTypes),
  );
  parts.push(
    mapType(
      'WebhookPayloads',
      'Body type of each webhook event (the full payload or its trimmed summary).',
      webhookTypes,
    ),
  );
  return `${parts.join('\n').trimEnd()}\n`;
}

/** Record titles by `$id`: a `$ref` to a record becomes a reference to its generated type. */
const recordTitles = new Map<string, string>(allRecordSchemas.map((schema) => [schema.$id, schema.title]));

function referRecords(node: unknown): unknown {
  if (Array.isArray(node)) return node.map(referRecords);
  if (node === null || typeof node !== 'object') return node;
  const object = node as Record<string, unknown>;
  const ref = object.$ref;
  if (typeof ref === 'string' && recordTitles.has(ref)) return { tsType: recordTitles.get(ref) };
  return Object.fromEntries(Object.entries(object).map(([key, value]) => [key, referRecords(value)]));
}

async function emit(schema: { title: string; $id: string }, parts: string[]): Promise<string> {
  // A record's own schema is emitted whole; references to other records inside any schema point at them.
  const input = { ...(referRecords(schema) as object), $id: schema.$id };
  const source = await compile(input as Parameters<typeof compile>[0], schema.title, {
    bannerComment: '',
    additionalProperties: false,
    format: false,
    unreachableDefinitions: false,
  });
  parts.push(source.trim(), '');
  return schema.title;
}

function mapType(name: string, doc: string, members: Record<string, string>): string {
  const lines = Object.entries(members).map(([key, type]) => `  '${key}': ${type};`);
  return `/** ${doc} */\nexport interface ${name} {\n${lines.join('\n')}\n}\n`;
}

function unionType(name: string, doc: string, members: Record<string, string>): string {
  const lines = Object.entries(members).map(([type, data]) => `  | { type: '${type}'; data: ${data} }`);
  return `/** ${doc} */\nexport type ${name} =\n${lines.join('\n')};\n`;
}

// `--print` writes to stdout instead of the file: the drift test compares that with the committed file.
if (require.main === module) {
  generateTypes().then((source) => {
    if (process.argv.includes('--print')) {
      process.stdout.write(source);
      return;
    }
    fs.mkdirSync(path.dirname(GENERATED_TYPES_FILE), { recursive: true });
    fs.writeFileSync(GENERATED_TYPES_FILE, source);
    console.log(`wrote ${path.relative(process.cwd(), GENERATED_TYPES_FILE)}`);
  });
}
