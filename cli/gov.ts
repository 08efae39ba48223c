#!/usr/bin/env node
import { ConfigError } from '../runtime/config/config';
import { EXIT, UsageError, wantsHelp } from './command';
import { commands } from './commands';
import { OperatorStoreError } from './stores';

function overview(): string {
  const lines = commands.map((c) => `  ${c.synopsis}\n      ${c.summary}`);
  return `gov: auditor and operator tool of the governance clearinghouse

Usage:
${lines.join('\n')}
  gov <command> --help
      the options of one command

Exit codes: 0 done, 1 failed, 2 usage error, 3 discrepancies found (audit, witness).`;
}

async function main(argv: string[]): Promise<number> {
  const [name, ...rest] = argv;
  if (!name || name === '--help' || name === '-h' || name === 'help') {
    console.log(overview());
    return name ? EXIT.ok : EXIT.usage;
  }
  const command = commands.find((c) => c.name === name);
  if (!command) {
    console.error(`gov: unknown command '${name}'\n\n${overview()}`);
    return EXIT.usage;
  }
  if (wantsHelp(rest)) {
    console.log(command.help);
    return EXIT.ok;
  }
  try {
    return await command.run(rest);
  } catch (error) {
    const code = (error as { code?: string }).code;
    if (error instanceof UsageError || error instanceof ConfigError || code?.startsWith('ERR_PARSE_ARGS')) {
      console.error(`gov ${name}: ${(error as Error).message}\n(gov ${name} --help shows the options)`);
      return EXIT.usage;
    }
    if (error instanceof OperatorStoreError) {
      console.error(`gov ${name}: ${error.message}`);
      return EXIT.failure;
    }
    throw error;
  }
}

main(process.argv.slice(2))
  .then((code) => process.exit(code))
  .catch((error) => {
    console.error(`gov: ${(error as Error).stack ?? error}`);
    process.exit(EXIT.failure);
  });
