/**
 * Import rules, checked by `npm run deps` (part of `npm test`). Type-only imports count: a type import
 * ties two files together as much as a value import does (swc reads every `import type`).
 *
 * Layers, from the bottom: merkle-core, ports, event-schemas, domain; adapters; command-api, projectors,
 * read-api (each an engine/ folder and one folder per bounded context: governance/, later agents/);
 * runtime (config/, support/ and stores/ below; http/, keys/, threads/; wiring/, which composes the
 * rest; roles/ and main.ts on top); cli, bench, audit, witness.
 *
 * `.dependency-cruiser-folders.cjs` adds the rule against circles between folders, over the code that
 * ships (tests sit beside the code they test, so their imports would draw circles no shipped code has).
 */

/** Node modules that reach outside the process: files, sockets, processes, threads. */
const NODE_IO = [
  'fs',
  'fs/promises',
  'net',
  'http',
  'https',
  'http2',
  'tls',
  'dns',
  'dns/promises',
  'dgram',
  'child_process',
  'cluster',
  'worker_threads',
  'readline',
];
/** Packages that talk to a database, a broker or the network, or serve HTTP. */
const IO_PACKAGES = [
  'better-sqlite3',
  'mongodb',
  '@eventstore/db-client',
  'kafkajs',
  'express',
  'undici',
  'ws',
  'prom-client',
  'pino',
  'nodemailer',
];

/** Test code: specs, contract suites, fixtures and their helpers. */
const TEST_CODE =
  '\\.test\\.ts$|\\.contract\\.ts$|^tests/|/contract/|^merkle-core/test/|/test-fixtures\\.ts$|/property-support\\.ts$';

/** Folders that run any context's features and must not know any one context. */
const ENGINES = '^(command-api/engine|projectors/engine|read-api/engine|ports|adapters|merkle-core)/';

/** A name as a regular expression that matches it literally. */
const literal = (name) => name.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');

module.exports = {
  forbidden: [
    {
      name: 'no-circular',
      comment: 'Two files that import each other (directly or around a loop, type imports included).',
      severity: 'error',
      from: {},
      to: { circular: true },
    },
    {
      name: 'domain-no-io',
      comment:
        'domain/ is pure: decisions and checks over values. No files, sockets, processes or threads ' +
        '(node:crypto is fine: hashing and signing are computation), no stores, no HTTP, and nothing ' +
        'from the layers that do I/O.',
      severity: 'error',
      from: { path: '^domain/', pathNot: TEST_CODE },
      to: {
        path: [
          `^(node:)?(${NODE_IO.map(literal).join('|')})$`,
          `^node_modules/(${IO_PACKAGES.map(literal).join('|')})/`,
          '^(adapters|runtime|projectors|read-api|command-api|cli|bench|audit|witness)/',
        ],
      },
    },
    {
      name: 'governance-not-into-agents',
      comment: 'One bounded context does not reach into another: governance does not import agents.',
      severity: 'error',
      from: { path: '(^|/)governance/' },
      to: { path: '(^|/)agents/' },
    },
    {
      name: 'agents-not-into-governance',
      comment: 'One bounded context does not reach into another: agents does not import governance.',
      severity: 'error',
      from: { path: '(^|/)agents/' },
      to: { path: '(^|/)governance/' },
    },
    {
      name: 'engines-not-into-contexts',
      comment:
        'Engine folders (how commands run, how projections run, how reads wait, the ports and their ' +
        'adapters, the Merkle library) serve every context and import none.',
      severity: 'error',
      from: { path: ENGINES, pathNot: TEST_CODE },
      to: { path: '(^|/)(governance|agents)/' },
    },
    {
      name: 'not-to-unresolvable',
      comment: 'An import that does not resolve would drop out of every rule above unseen.',
      severity: 'error',
      from: {},
      to: { couldNotResolve: true },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    // TypeScript 7 has no JavaScript API for dependency-cruiser's tsc parser; swc parses every import,
    // `import type` included.
    parser: 'swc',
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    enhancedResolveOptions: { extensions: ['.ts', '.js', '.json'] },
  },
};
