/**
 * The service's five promises, checked from the outside after a fault: through the public log (with
 * merkle-core's verifiers and the published key), the webhook receiver, and `gov audit` on the stored
 * events. Every broken promise is listed with what broke it, not only the first.
 *
 *   acknowledged  every admission answered 201 is in the log at its leaf_index with its leaf_hash,
 *                 under the STH it was answered with;
 *   indices       leaf indices are dense (every index below the tree size holds a leaf whose record
 *                 hashes to it) and unique (no two leaves share a hash, no two 201s an index);
 *   heads         every STH a client saw or the log serves verifies under the log key, the log serves the
 *                 same head at that size, consecutive heads are consistent and their timestamps never
 *                 go back;
 *   webhooks      every leaf of the tenant was delivered as `leaf_admitted` at least once, under one
 *                 event id, correctly signed;
 *   audit         `gov audit` of the event store exits 0 and counts as many leaves as the log holds.
 *
 * The first three are one log's (checkLogPromises): a test of several logs checks each.
 */
import { verify as octokitVerify } from '@octokit/webhooks-methods';
import { type JsonSth, leafHashOfRecord } from '../../domain/log';
import { toHex } from '../../merkle-core';
import { type GovRunOptions, runGov } from './children';
import { type AdmittedEvidence, type GovClient, inParallel, LogVerifier } from './governance-client';
import type { WebhookReceiver } from './webhook-receiver';

export interface PromiseInputs extends LogPromiseInputs {
  /** The tenant whose `leaf_admitted` webhook the receiver gets, signed with `secret`. */
  webhooks: { tenantId: string; receiver: WebhookReceiver; secret: string; timeoutMs?: number };
  /** Where `gov audit` finds the event store. */
  audit: GovRunOptions;
}

/** What the promises of one log are checked against. */
export interface LogPromiseInputs {
  /** Where the public log is read (the embedded server, or a read API). */
  log: GovClient;
  /** The log's path: `/gov/v1/log` (the shared log, the default) or `/gov/v1/logs/<name>`. */
  base?: string;
  /** Every 201 body of POST /governance/evidence whose leaf is in this log. */
  admitted: readonly AdmittedEvidence[];
  /** STHs of this log clients saw otherwise (GET {base}/sth while the faults ran). */
  servedHeads?: readonly JsonSth[];
}

type PromiseName = 'acknowledged' | 'indices' | 'heads' | 'webhooks' | 'audit';
type LogPromiseName = 'acknowledged' | 'indices' | 'heads';

export interface PromiseReport {
  treeSize: number;
  heads: number;
  delivered: number;
  problems: Record<PromiseName, string[]>;
}

export interface LogPromiseReport {
  /** The log's latest signed head once it settled, verified. */
  latest: JsonSth;
  heads: number;
  /** Each leaf the log serves, by index (null where it served none). */
  leaves: readonly (LeafRecord | null)[];
  problems: Record<LogPromiseName, string[]>;
}

interface LeafRecord {
  leaf_index: number;
  leaf_hash: string;
  record: { tenant_id?: string };
}

/** Checks the five promises and fails naming each broken one with its first problems. */
export async function expectPromisesKept(inputs: PromiseInputs): Promise<PromiseReport> {
  const report = await checkPromises(inputs);
  throwIfBroken(report.problems);
  return report;
}

/** Throws naming each promise (a key of `problems`) that has problems, with its first ones. */
export function throwIfBroken(problems: Record<string, readonly string[]>): void {
  const broken = Object.entries(problems).filter(([, list]) => list.length > 0);
  if (broken.length > 0)
    throw new Error(
      `promises broken after the fault:\n${broken
        .map(
          ([name, list]) =>
            `  ${name} (${list.length}):\n${list
              .slice(0, 10)
              .map((p) => `    - ${p}`)
              .join('\n')}`,
        )
        .join('\n')}`,
    );
}

async function checkPromises(inputs: PromiseInputs): Promise<PromiseReport> {
  const { latest, heads, leaves, problems: ofLog } = await checkLogPromises(inputs);
  const problems: Record<PromiseName, string[]> = { ...ofLog, webhooks: [], audit: [] };
  const due = leaves
    .filter((leaf) => leaf?.record.tenant_id === inputs.webhooks.tenantId)
    .map((l) => l!.leaf_hash);
  const delivered = await checkWebhooks(due, inputs.webhooks, problems.webhooks);
  await checkAudit(inputs.audit, latest.tree_size, problems.audit);
  return { treeSize: latest.tree_size, heads, delivered, problems };
}

/**
 * The promises one log keeps (acknowledged, indices, heads), checked through its public routes once
 * its tree size settled.
 */
export async function checkLogPromises(inputs: LogPromiseInputs): Promise<LogPromiseReport> {
  const base = inputs.base ?? '/gov/v1/log';
  const problems: Record<LogPromiseName, string[]> = { acknowledged: [], indices: [], heads: [] };
  const verifier = new LogVerifier(() => inputs.log, base);
  await untilLogSettles(inputs.log, base);
  const latest = await verifier.latest();
  const leaves = await readAllLeaves(inputs.log, base, latest.tree_size, problems.indices);

  await checkAcknowledged(inputs.admitted, leaves, verifier, problems.acknowledged);
  checkIndices(inputs.admitted, leaves, problems.indices);
  await checkHeads(
    [...inputs.admitted.map((a) => a.sth), ...(inputs.servedHeads ?? [])],
    verifier,
    inputs.log,
    problems.heads,
  );
  return { latest, heads: verifier.heads.size, leaves, problems };
}

/**
 * Waits until the signed tree size has not changed for a second: a restarted sequencer integrates
 * leaves appended before the fault after it already answers.
 */
async function untilLogSettles(log: GovClient, base: string, timeoutMs = 30_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  let size = -1;
  let since = Date.now();
  while (Date.now() - since < 1000) {
    if (Date.now() > deadline)
      throw new Error(`the tree size of ${base} was still changing after ${timeoutMs} ms`);
    const res = await log.get<JsonSth>(`${base}/sth`);
    if (res.status === 200 && res.body.tree_size !== size) {
      size = res.body.tree_size;
      since = Date.now();
    }
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

/** Every leaf the log holds, by index (null where it answers no leaf). */
async function readAllLeaves(
  log: GovClient,
  base: string,
  size: number,
  problems: string[],
): Promise<(LeafRecord | null)[]> {
  const leaves: (LeafRecord | null)[] = Array(size).fill(null);
  await inParallel(
    Array.from({ length: size }, (_, i) => i),
    16,
    async (index) => {
      const res = await readLeaf(log, base, index);
      if (res.status !== 200 || res.body.leaf_index !== index)
        problems.push(`leaf ${index} of a tree of ${size}: HTTP ${res.status} ${res.text.slice(0, 300)}`);
      else if (toHex(leafHashOfRecord(res.body.record)) !== res.body.leaf_hash)
        problems.push(`leaf ${index}: its record does not hash to its leaf_hash ${res.body.leaf_hash}`);
      else leaves[index] = res.body;
    },
  );
  return leaves;
}

/**
 * GET {base}/leaf?index=N, asked again for up to 15 s while it answers 404: the record comes from
 * a read model, which may still be catching up after a fault although the tree already holds the leaf.
 */
async function readLeaf(log: GovClient, base: string, index: number) {
  const deadline = Date.now() + 15_000;
  for (;;) {
    const res = await log.get<LeafRecord>(`${base}/leaf?index=${index}`);
    if (res.status !== 404 || Date.now() > deadline) return res;
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
}

async function checkAcknowledged(
  admitted: readonly AdmittedEvidence[],
  leaves: readonly (LeafRecord | null)[],
  verifier: LogVerifier,
  problems: string[],
): Promise<void> {
  await inParallel(admitted, 16, async (a) => {
    const leaf = leaves[a.leaf_index];
    if (!leaf) {
      problems.push(
        `leaf ${a.leaf_index} (${a.leaf_hash}) was acknowledged but the log of ${leaves.length} has no such leaf`,
      );
      return;
    }
    if (leaf.leaf_hash !== a.leaf_hash)
      problems.push(
        `leaf ${a.leaf_index} was acknowledged as ${a.leaf_hash} but the log holds ${leaf.leaf_hash} there`,
      );
    await failureOf(() => verifier.checkSth(a.sth)).then((failure) => {
      if (failure) problems.push(`the STH of the 201 for leaf ${a.leaf_index}: ${failure}`);
    });
    await failureOf(() => verifier.checkInclusion(a.leaf_index, a.leaf_hash, a.sth)).then((failure) => {
      if (failure)
        problems.push(`leaf ${a.leaf_index} under the STH of its 201 (size ${a.sth.tree_size}): ${failure}`);
    });
  });
}

function checkIndices(
  admitted: readonly AdmittedEvidence[],
  leaves: readonly (LeafRecord | null)[],
  problems: string[],
): void {
  const byIndex = new Map<number, string>();
  for (const a of admitted) {
    const other = byIndex.get(a.leaf_index);
    if (other !== undefined && other !== a.leaf_hash)
      problems.push(`leaf index ${a.leaf_index} was acknowledged twice: as ${other} and as ${a.leaf_hash}`);
    byIndex.set(a.leaf_index, a.leaf_hash);
  }
  const indexOfHash = new Map<string, number>();
  leaves.forEach((leaf, index) => {
    if (!leaf) return;
    const first = indexOfHash.get(leaf.leaf_hash);
    if (first !== undefined)
      problems.push(`leaf ${leaf.leaf_hash} is in the log twice: at ${first} and at ${index}`);
    else indexOfHash.set(leaf.leaf_hash, index);
  });
}

async function checkHeads(
  seen: readonly JsonSth[],
  verifier: LogVerifier,
  log: GovClient,
  problems: string[],
): Promise<void> {
  for (const sth of seen) {
    const failure = await failureOf(() => verifier.checkSth(sth));
    if (failure) problems.push(`STH of size ${sth.tree_size}: ${failure}`);
  }
  // The log serves the same head at every size a client saw.
  await inParallel([...verifier.heads.keys()], 16, async (size) => {
    const res = await log.get<JsonSth>(`${verifier.base}/sth?tree_size=${size}`);
    if (res.status !== 200)
      problems.push(
        `GET ${verifier.base}/sth?tree_size=${size}: HTTP ${res.status} ${res.text.slice(0, 200)}`,
      );
    else {
      const failure = await failureOf(() => verifier.checkSth(res.body));
      if (failure) problems.push(`the served STH of size ${size}: ${failure}`);
    }
  });
  const failure = await failureOf(() => verifier.checkConsistencyChain());
  if (failure) problems.push(`consistency between consecutive heads: ${failure}`);
  const heads = verifier.sortedHeads();
  heads.slice(1).forEach((head, i) => {
    const before = heads[i]!;
    if (Date.parse(head.timestamp) < Date.parse(before.timestamp))
      problems.push(
        `the head of size ${head.tree_size} is timestamped ${head.timestamp}, before the head of size ${before.tree_size} (${before.timestamp})`,
      );
  });
}

/** Waits for a `leaf_admitted` delivery of every due leaf; returns how many distinct events arrived. */
async function checkWebhooks(
  due: readonly string[],
  { receiver, secret, timeoutMs = 60_000 }: PromiseInputs['webhooks'],
  problems: string[],
): Promise<number> {
  const deliveredHashes = () =>
    new Set(receiver.ofType('leaf_admitted').map((d) => d.body.leaf_hash as string));
  const missing = () => due.filter((hash) => !deliveredHashes().has(hash));
  await receiver
    .waitFor(() => missing().length === 0, timeoutMs)
    .catch(() => {
      const left = missing();
      problems.push(
        `${left.length} of ${due.length} leaves never got their leaf_admitted webhook, e.g. ${left.slice(0, 3).join(', ')}`,
      );
    });
  const eventOfLeaf = new Map<string, string>();
  const bytesOfEvent = new Map<string, string>();
  for (const delivery of receiver.ofType('leaf_admitted')) {
    const leafHash = delivery.body.leaf_hash as string;
    const eventId = delivery.body.event_id as string;
    const known = eventOfLeaf.get(leafHash);
    if (known !== undefined && known !== eventId)
      problems.push(
        `leaf ${leafHash} was delivered as two events, ${known} and ${eventId}: receivers could not deduplicate`,
      );
    eventOfLeaf.set(leafHash, eventId);
    const bytes = bytesOfEvent.get(eventId);
    if (bytes !== undefined && bytes !== delivery.raw)
      problems.push(`event ${eventId} was delivered twice with different bodies`);
    bytesOfEvent.set(eventId, delivery.raw);
    if (!(await octokitVerify(secret, delivery.raw, String(delivery.headers['x-gov-signature-256']))))
      problems.push(`the delivery of event ${eventId} is not signed with the webhook's secret`);
  }
  return bytesOfEvent.size;
}

async function checkAudit(audit: GovRunOptions, treeSize: number, problems: string[]): Promise<void> {
  const run = await runGov(['audit', '--json'], audit);
  if (run.code !== 0) {
    problems.push(`gov audit exited ${run.code}: ${run.stdout.slice(0, 2000)} ${run.stderr.slice(0, 1000)}`);
    return;
  }
  const { leaves } = JSON.parse(run.stdout) as { leaves: number };
  if (leaves !== treeSize) problems.push(`gov audit counted ${leaves} leaves; the log serves ${treeSize}`);
}

/** The message of what `check` threw, or null when it passed. */
async function failureOf(check: () => Promise<unknown>): Promise<string | null> {
  try {
    await check();
    return null;
  } catch (error) {
    const lines = (error as Error).message.split('\n').map((line) => line.trim());
    return lines
      .filter((line) => line !== '')
      .slice(0, 12)
      .join(' ');
  }
}
