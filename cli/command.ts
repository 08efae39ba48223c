/** One subcommand of `gov`: its own argument parsing, help text and exit code. */
export interface CliCommand {
  /** The word after `gov`. */
  readonly name: string;
  /** One line for `gov --help`: the usage synopsis. */
  readonly synopsis: string;
  /** One short sentence for `gov --help`. */
  readonly summary: string;
  /** The full text of `gov <name> --help`. */
  readonly help: string;
  /** Runs the command with the arguments after its name; resolves to the process exit code. */
  run(args: string[]): Promise<number>;
}

/** Exit codes scripts can rely on, the same for every subcommand. */
export const EXIT = {
  /** Done; for `audit`, the stream audited clean. */
  ok: 0,
  /** The command could not do its work (a store that cannot be read, a server that does not answer…). */
  failure: 1,
  /** Bad arguments: the message says which; nothing was changed. */
  usage: 2,
  /** `audit` (and `witness --once`) ran to the end and found discrepancies, each reported. */
  discrepancies: 3,
} as const;

/** A usage error raised by a command's argument checks; `gov` prints it and exits with EXIT.usage. */
export class UsageError extends Error {
  override readonly name = 'UsageError';
}

/** An operator's change that was not made (`usage`: its arguments were wrong). */
export interface ChangeRefused {
  ok: false;
  usage: boolean;
  message: string;
}

/**
 * Prints a change's outcome, as JSON with `--json`, else `line` of a done one on standard output or
 * `<command>: <message>` on standard error; returns the exit code.
 */
export function reportChange<Done extends { ok: true }>(
  outcome: Done | ChangeRefused,
  options: { json: boolean | undefined; command: string; line: (done: Done) => string },
): number {
  if (options.json) console.log(JSON.stringify(outcome, null, 2));
  else if (outcome.ok) console.log(options.line(outcome));
  else console.error(`${options.command}: ${outcome.message}`);
  if (outcome.ok) return EXIT.ok;
  return outcome.usage ? EXIT.usage : EXIT.failure;
}

/** Whether `--help`/`-h` is among the arguments (checked before any other parsing). */
export function wantsHelp(args: readonly string[]): boolean {
  return args.includes('--help') || args.includes('-h');
}
