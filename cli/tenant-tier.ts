import { randomUUID } from 'node:crypto';
import os from 'node:os';
import { AggregateWriter } from '../command-api/engine/aggregate-writer';
import {
  decideChangeTier,
  dedicatedLogFor,
  UnknownTenantError,
} from '../command-api/governance/tenants/account-commands';
import { tenantAggregate, tenantStream } from '../command-api/governance/tenants/tenant-state';
import type { Tier } from '../domain/governance/tier-limits';
import { TIER_LIMITS } from '../domain/governance/tier-limits';
import { logOriginOf } from '../domain/log';
import { eventSchemas } from '../event-schemas/governance';
import type { EventStore } from '../ports/event-store';
import { ensureLogCreated } from '../projectors/log/log-directory';
import { parseLogSigner, readCurrentKey } from '../runtime/keys/key-files';
import { withKeysLock } from '../runtime/keys/keys-lock';
import { ensureLogKey } from '../runtime/keys/log-keys';

export interface TierCommand {
  /** The keys folder, where a dedicated log's key is made (`<data>/keys`). */
  keysDir: string;
  tenantId: string;
  tier: string;
  dailyLeafLimit?: string;
  /** The tenant's own API requests per minute (absent: the tier's). */
  requestsPerMinute?: string;
  operator?: string;
  reason?: string;
}

export type TierCommandResult =
  | {
      ok: true;
      changed: boolean;
      tenant_id: string;
      tier: Tier;
      previous_tier: Tier;
      daily_leaf_limit: number | null;
      /** The tenant's own API requests per minute; null: the tier's. */
      requests_per_minute: number | null;
      /** The log the tenant's admissions go to from now on. */
      log: string;
      /** Whether this change created the tenant's dedicated log. */
      log_created: boolean;
    }
  | { ok: false; usage: boolean; message: string };

/**
 * `gov tenant tier <tenant_id> <tier>`: appends TenantTierChanged to the tenant's stream (the running
 * server sees it through its projections and its next decision for that tenant). To L4, a live tenant
 * gets its dedicated log first: its key file (if absent), then its `LogCreated` (if absent), then the
 * tier change naming it, so that no admission can name a log that does not exist yet.
 */
export async function changeTier(
  eventStore: EventStore,
  command: TierCommand,
  now = new Date(),
): Promise<TierCommandResult> {
  if (!/^ten_[0-9a-f]{24}$/.test(command.tenantId)) {
    return {
      ok: false,
      usage: true,
      message: `'${command.tenantId}' is not a tenant id (ten_ and 24 hex digits)`,
    };
  }
  if (!Object.hasOwn(TIER_LIMITS, command.tier)) {
    return { ok: false, usage: true, message: `tier must be one of ${Object.keys(TIER_LIMITS).join(', ')}` };
  }
  let dailyLeafLimit: number | null = null;
  if (command.dailyLeafLimit !== undefined) {
    dailyLeafLimit = Number(command.dailyLeafLimit);
    if (!/^(0|[1-9][0-9]{0,9})$/.test(command.dailyLeafLimit)) {
      return {
        ok: false,
        usage: true,
        message: '--daily-leaf-limit must be a whole number of leaves per day',
      };
    }
  }
  let requestsPerMinute: number | null = null;
  if (command.requestsPerMinute !== undefined) {
    requestsPerMinute = Number(command.requestsPerMinute);
    if (
      !/^[1-9][0-9]{0,6}$/.test(command.requestsPerMinute) ||
      requestsPerMinute > REQUESTS_PER_MINUTE.maximum
    ) {
      return {
        ok: false,
        usage: true,
        message: `--requests-per-minute must be a whole number from 1 to ${REQUESTS_PER_MINUTE.maximum}`,
      };
    }
  }
  const textProblem = textOptionProblem(command);
  if (textProblem) return { ok: false, usage: true, message: textProblem };
  const tier = command.tier as Tier;
  const writer = new AggregateWriter(eventStore, tenantAggregate);
  const stream = tenantStream(command.tenantId);
  try {
    const before = await writer.state(stream);
    if (!before.exists) throw new UnknownTenantError(`no tenant ${command.tenantId}`);
    const dedicated = dedicatedLogFor(before, tier);
    const created = dedicated
      ? await createDedicatedLog(eventStore, command.keysDir, command.tenantId, dedicated)
      : false;
    const result = await writer.execute(stream, (state) =>
      decideChangeTier(
        state,
        {
          tier,
          dailyLeafLimit,
          requestsPerMinute,
          operator: command.operator ?? `${os.userInfo().username}@${os.hostname()}`,
          reason: command.reason,
        },
        { now, correlationId: `cli-${randomUUID()}` },
      ),
    );
    return {
      ok: true,
      changed: result.changed,
      tenant_id: command.tenantId,
      tier,
      previous_tier: result.previous_tier,
      daily_leaf_limit: dailyLeafLimit,
      requests_per_minute: requestsPerMinute,
      log: result.log,
      log_created: created,
    };
  } catch (error) {
    if (error instanceof UnknownTenantError)
      return { ok: false, usage: false, message: `no tenant ${command.tenantId}` };
    throw error;
  }
}

/** The key file (if absent) and the `LogCreated` event (if absent) of a tenant's dedicated log. */
async function createDedicatedLog(
  eventStore: EventStore,
  keysDir: string,
  tenantId: string,
  log: string,
): Promise<boolean> {
  const shared = readCurrentKey(keysDir, 'log');
  if (!shared)
    throw new Error(
      `${keysDir} holds no log key: start the server once, or run gov keys generate, before moving a tenant to L4`,
    );
  const origin = logOriginOf(parseLogSigner(shared.text).name, log);
  const signer = await withKeysLock(keysDir, { purpose: 'gov tenant tier', waitMs: 10_000 }, () =>
    ensureLogKey(keysDir, log, origin),
  );
  return ensureLogCreated(eventStore, {
    log,
    kind: 'dedicated',
    origin,
    verifier_key: signer.verifierKey,
    tenant_id: tenantId,
  });
}

const {
  changed_by: OPERATOR,
  reason: REASON,
  requests_per_minute: REQUESTS_PER_MINUTE,
} = eventSchemas.TenantTierChanged.properties;

/** --operator and --reason within what the event keeps (the store would refuse the event otherwise). */
export function textOptionProblem(command: Pick<TierCommand, 'operator' | 'reason'>): string | null {
  // JSON Schema counts characters as code points.
  const length = (text: string) => [...text].length;
  if (
    command.operator !== undefined &&
    (length(command.operator) < OPERATOR.minLength || length(command.operator) > OPERATOR.maxLength)
  )
    return `--operator must be ${OPERATOR.minLength} to ${OPERATOR.maxLength} characters`;
  if (command.reason !== undefined && length(command.reason) > REASON.maxLength)
    return `--reason must be at most ${REASON.maxLength} characters`;
  return null;
}
