import { parseArgs } from 'node:util';
import { type CliCommand, reportChange, UsageError } from './command';
import { STORE_LOCATION_HELP, withEventStore } from './stores';
import { changeRole } from './user-role';

const USAGE = 'gov user <grant-admin|revoke-admin> <email> [--operator NAME] [--reason TEXT] [--json]';

export const userCommand: CliCommand = {
  name: 'user',
  synopsis: USAGE,
  summary: "grant or revoke a platform user's admin role",
  help: `Usage: ${USAGE}

Appends UserRoleChanged to the agent platform user's stream (found from the email, whatever its
case) in the configured event store; a running server applies it as soon as its projectors have read
it, and the user's next request has the role (GET /v1/auth/me says it). The user must have signed in
once. The read store is not opened.

Options:
  --operator NAME   who made the change (default: the OS user)
  --reason TEXT     why, kept in the event
  --json            print the result as JSON

${STORE_LOCATION_HELP}

Exit codes: 0 done (or nothing to change), 1 failed (no such user, no event store at the configured
place…: nothing changed), 2 usage error.`,
  async run(args) {
    const { values, positionals } = parseArgs({
      args,
      allowPositionals: true,
      options: {
        json: { type: 'boolean' },
        operator: { type: 'string' },
        reason: { type: 'string' },
      },
    });
    const [subcommand, email] = positionals;
    if ((subcommand !== 'grant-admin' && subcommand !== 'revoke-admin') || !email || positionals.length !== 2)
      throw new UsageError(`usage: ${USAGE}`);
    const result = await withEventStore((eventStore) =>
      changeRole(eventStore, {
        email,
        role: subcommand === 'grant-admin' ? 'admin' : 'user',
        operator: values.operator,
        reason: values.reason,
      }),
    );
    return reportChange(result, {
      json: values.json,
      command: `gov user ${subcommand}`,
      line: (done) =>
        done.changed
          ? `${done.user_id}: role ${done.previous_role} -> ${done.role}`
          : `${done.user_id}: already ${done.role}; nothing changed`,
    });
  },
};
