/**
 * Generates `generated/types.ts` from the JSON Schemas, so TypeScript types cannot drift from what is
 * validated: `npm run schemas` rewrites it, and a test fails when the committed file is stale.
 */
import fs from 'node:fs';
import path from 'node:path';
import { compile } from 'json-schema-to-typescript';
import { commandSchemas, eventSchemas } from './schemas';

export const GENERATED_TYPES_FILE = path.join(__dirname, 'generated', 'types.ts');

export async function generateTypes(): Promise<string> {
  const parts = [
    '/* Generated from event-schemas/schemas by `npm run schemas`. Do not edit by hand. */',
    '/* eslint-disable */',
    '',
  ];
  const commandTypes: Record<string, string> = {};
  const eventTypes: Record<string, string> = {};
  for (const [name, schema] of Object.entries(commandSchemas)) commandTypes[name] = await emit(schema, parts);
  for (const [type, schema] of Object.entries(eventSchemas)) eventTypes[type] = await emit(schema, parts);
  parts.push(mapType('CommandBodies', 'Request body type of each command.', commandTypes));
  parts.push(mapType('EventPayloads', 'Payload (`data`) type of each domain event.', eventTypes));
  return `${parts.join('\n').trimEnd()}\n`;
}

async function emit(schema: { title: string }, parts: string[]): Promise<string> {
  const source = await compile(structuredClone(schema) as Parameters<typeof compile>[0], schema.title, {
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
