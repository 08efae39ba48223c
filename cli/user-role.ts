import { randomUUID } from 'node:crypto';
import os from 'node:os';
import { AggregateWriter } from '../command-api/engine/aggregate-writer';
import { decideChangeRole } from '../command-api/platform/accounts/user-commands';
import { type Role, userAggregate, userStream } from '../command-api/platform/accounts/user-state';
import { userIdOfEmail } from '../domain/platform/ids';
import type { EventStore } from '../ports/event-store';
import { textOptionProblem } from './tenant-tier';

export interface RoleCommand {
  email: string;
  role: Role;
  operator?: string;
  reason?: string;
}

export type RoleCommandResult =
  | { ok: true; changed: boolean; user_id: string; role: Role; previous_role: Role }
  | { ok: false; usage: boolean; message: string };

/** The shape of an address, no more: the user must have signed in, which the decision checks. */
const EMAIL = /^[^\s@]+@[^\s@]+$/;

/**
 * `gov user grant-admin|revoke-admin <email>`: appends UserRoleChanged to the user's stream (found
 * from the email) in the configured event store; a running server applies it through its projections,
 * so the user's next request has the role. Nothing is appended when the user already has it.
 */
export async function changeRole(
  eventStore: EventStore,
  command: RoleCommand,
  now = new Date(),
): Promise<RoleCommandResult> {
  if (!EMAIL.test(command.email))
    return { ok: false, usage: true, message: `'${command.email}' is not an email address` };
  const textProblem = textOptionProblem(command);
  if (textProblem) return { ok: false, usage: true, message: textProblem };
  const userId = userIdOfEmail(command.email);
  const writer = new AggregateWriter(eventStore, userAggregate);
  const decided = await writer.execute(userStream(userId), (state) =>
    decideChangeRole(
      state,
      {
        role: command.role,
        operator: command.operator ?? `${os.userInfo().username}@${os.hostname()}`,
        ...(command.reason === undefined ? {} : { reason: command.reason }),
      },
      { now, correlationId: `cli-${randomUUID()}` },
    ),
  );
  if (decided.kind === 'refused') return { ok: false, usage: false, message: decided.message };
  return {
    ok: true,
    changed: decided.changed,
    user_id: userId,
    role: command.role,
    previous_role: decided.previous_role,
  };
}
