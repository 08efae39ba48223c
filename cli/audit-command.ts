import fs from 'node:fs';
import path from 'node:path';
import { parseArgs } from 'node:util';
import {
  type AuditReport,
  type AuditScope,
  type AuditSource,
  AuditSourceError,
  type AuditTrust,
  CHECKS,
  exportAuditSource,
  parsePublishedKeys,
  runAudit,
  TrustError,
  trustFromPublishedKeys,
} from '../audit';
import { LiveLogCheck, liveLogOf } from '../audit/live-check';
import { LIVE_CHECKS } from '../audit/live-findings';
import { formatAuditSummary, formatLiveSummary } from '../audit/summary';
import { prepareTrust } from '../audit/trust';
import { isLogName, SHARED_LOG_NAME } from '../domain/log';
import { loadConfig } from '../runtime/config/config';
import { readPublishedKeys } from '../runtime/keys/key-history';
import { type Progress, ProgressBar } from '../runtime/support/progress-bar';
import { type CliCommand, EXIT, UsageError } from './command';
import { auditSourceOf, chooseEventStore } from './stores';

const SYNOPSIS =
  'gov audit [--store FILE|URL | --export FILE] [--keys-dir DIR | --trust FILE] [--log-key VKEY]… [--server URL] [--log NAME] [--checks all|log] [--workers N] [--json]';

const checkList = Object.entries({ ...CHECKS, ...LIVE_CHECKS })
  .map(([code, meaning]) => `  ${code.padEnd(27)}${meaning}`)
  .join('\n');

const HELP = `Usage: ${SYNOPSIS}

Proves, from the event stream alone, that every leaf, every root and every signed tree head the
service published is right: each event parses and matches its JSON Schema; positions increase and
every stream's revisions run from 0 without a gap; each admission's hashes, validator certificate and
authority signature verify and its leaf hash is recomputed; executions and variance records link
earlier leaves of the same tenant and their arithmetic recomputes; the tree is replayed leaf by leaf
and every TreeHeadSigned must start where the previous one ended, be signed by a trusted log key and
carry the recomputed root (which makes consecutive heads consistent by construction).
Every discrepancy is reported with its position; the audit never stops at the first one.

Every log found in the stream is audited apart: the shared log (events that name no log), the test
log and each dedicated log, each declared by one LogCreated event (its origin <shared origin>/<name>
and its key, under which its tree heads must verify; the shared log's heads verify under the trusted
log keys). Tree heads must be in their log's stream, no leaf hash may be in two logs, and an evidence
envelope must be bound to the key of the log it is in. The report gives each log's leaves, heads,
size and root.

Source (one of):
  --store FILE|URL  the event store: the embedded store's SQLite file, read directly and read-only,
                    or EventStoreDB named by a URL (esdb://host:2113?tls=false,
                    esdb://user:password@host:2113, esdb+discover://cluster-dns:2113), read through
                    its client. A running server may keep writing: the audit covers the events
                    present when it starts. Default: GOV_EVENT_STORE_URL if set, else the server's
                    store (GOV_EVENT_STORE_FILE, or <GOV_DATA_DIR>/events.db)
  --export FILE     an NDJSON export written by gov export; its checksum is verified at its end

Trust (one of; current and retired keys count):
  --keys-dir DIR    the node's keys folder. Default: <GOV_DATA_DIR>/keys
  --trust FILE      the JSON printed by gov keys show --json (what an outside auditor is given)
  --log-key VKEY    also trust this log verifier key (C2SP note format); repeatable

Live check:
  --server URL      also compare a running server's public log (https://gov.example) with the
                    recomputation, through its public endpoints only: every 256-leaf tile, the root
                    and checkpoint of every recorded tree head at or below its latest signed size, the
                    consistency proof between consecutive heads, and a sample of inclusion proofs
                    (every 1000th leaf and the last). Trust comes from the keys above, never from the
                    server. Leaves the server signed after the local copy was taken are notices. Each
                    anchor the events hold (every log's; with --log, that log's) is read at
                    …/logs/<log>/anchor?tree_size=N: it must be that anchor, proved into a shared STH
                    a trusted key signed, and the log's head at N must be the anchored checkpoint.

Options:
  --log NAME        audit one log alone (shared, test, dedicated-<24 hex>): other logs' leaves and
                    heads are neither replayed nor reported; with --server, the log compared
  --checks all|log  all (the default): every check above. log: the log structure alone, as a
                    transparency-log monitor checks it: positions and revisions, each admission's
                    leaf record hashed to its leaf (and its stored leaf_hash), the tree replayed, and
                    every tree head (sizes, checkpoint signature and contents, root, time). Events'
                    schemas, bundles, validator certificates, envelope signatures and closed-loop
                    links are not checked: about twenty-five times faster, since a full audit
                    verifies five Ed25519 signatures per evidence leaf
  --workers N       worker threads for parsing, hashing and signature checks (default: one per core;
                    0 checks on the main thread)
  --json            print the report as JSON instead of a progress bar and a summary

Checks (the 'check' code of each discrepancy):
${checkList}

Truncation at the end of the stream (the newest events dropped) leaves nothing to contradict: admissions
no tree head integrates are listed as notices. Compare with a server or a witness to rule it out.

Exit codes: 0 the stream (and the server, with --server) audited clean, 1 the source, the keys or the
server cannot be read at all (an EventStoreDB that does not answer within 5 s included), 2 usage error,
3 discrepancies found (each one listed).`;

export const auditCommand: CliCommand = {
  name: 'audit',
  synopsis: SYNOPSIS,
  summary: 'recompute every leaf, root and signed tree head from the events and report discrepancies',
  help: HELP,
  async run(args) {
    const { values } = parseArgs({
      args,
      options: {
        store: { type: 'string' },
        export: { type: 'string' },
        'keys-dir': { type: 'string' },
        trust: { type: 'string' },
        'log-key': { type: 'string', multiple: true },
        workers: { type: 'string' },
        json: { type: 'boolean' },
        server: { type: 'string' },
        checks: { type: 'string' },
        log: { type: 'string' },
      },
    });
    const log = parseLog(values.log);
    if (values.store !== undefined && values.export !== undefined)
      throw new UsageError('--store and --export name two sources: give one');
    if (values['keys-dir'] !== undefined && values.trust !== undefined)
      throw new UsageError('--keys-dir and --trust are two trusts: give one (add keys with --log-key)');
    const workers = parseWorkers(values.workers);
    const checks = parseChecks(values.checks);
    const json = Boolean(values.json);

    let trust: AuditTrust;
    try {
      trust = loadTrust(values.trust, values['keys-dir'], values['log-key'] ?? []);
    } catch (error) {
      if (error instanceof UsageError) throw error;
      console.error(`gov audit: the trusted keys cannot be read: ${(error as Error).message}`);
      return EXIT.failure;
    }
    if (!json) warnAboutEmptyTrust(trust);
    const source: AuditSource =
      values.export !== undefined
        ? exportAuditSource(path.resolve(values.export))
        : auditSourceOf(chooseEventStore(values.store));

    // --server: compare what a running server publishes with this recomputation, leaf by leaf.
    const live = values.server === undefined ? null : liveCheckOf(values.server, trust, log);
    if (live) await live.begin();

    const bar = json ? null : new ProgressBar('audit');
    let last: Progress | null = null;
    let report: AuditReport;
    try {
      report = await runAudit(source, {
        trust,
        workers,
        checks,
        ...(log !== undefined && { log }),
        ...(live && { hooksLog: live.log, ...live.hooks }),
        onProgress: (progress) => {
          last = progress;
          bar?.update(progress);
        },
      });
    } catch (error) {
      if (error instanceof AuditSourceError) {
        console.error(`gov audit: ${error.message}`);
        return EXIT.failure;
      }
      throw error;
    }
    if (bar && last) bar.finish(last);
    if (live && live.log !== SHARED_LOG_NAME)
      live.confirmLogKey(report.logs.find((figures) => figures.log === live.log)?.verifier_key ?? null);
    const liveReport = live ? await live.finish() : null;
    if (json) console.log(JSON.stringify(liveReport ? { ...report, live: liveReport } : report, null, 2));
    else {
      console.log(formatAuditSummary(report, source.description));
      if (liveReport) console.log(`\n${formatLiveSummary(liveReport)}`);
    }
    // A server that could not be read or verified at all was not checked: a failure, not a verdict.
    if (liveReport && liveReport.server === null) return EXIT.failure;
    const found = report.discrepancies.length + (liveReport?.discrepancies.length ?? 0);
    return found > 0 ? EXIT.discrepancies : EXIT.ok;
  },
};

function liveCheckOf(serverUrl: string, trust: AuditTrust, log: string | undefined): LiveLogCheck {
  try {
    liveLogOf(serverUrl, log);
  } catch (error) {
    throw new UsageError(`--server: ${(error as Error).message}`);
  }
  return new LiveLogCheck({ serverUrl, trust, ...(log !== undefined && { log }) });
}

function parseLog(raw: string | undefined): string | undefined {
  if (raw === undefined || isLogName(raw)) return raw;
  throw new UsageError(`--log names a log: shared, test or dedicated-<24 hex digits>; got '${raw}'`);
}

function parseChecks(raw: string | undefined): AuditScope {
  if (raw === undefined || raw === 'all') return 'all';
  if (raw === 'log') return 'log';
  throw new UsageError(`--checks is all (every check) or log (the log structure alone); got '${raw}'`);
}

function parseWorkers(raw: string | undefined): number | undefined {
  if (raw === undefined) return undefined;
  const workers = Number(raw);
  if (!Number.isInteger(workers) || workers < 0 || workers > 256)
    throw new UsageError(`--workers must be an integer from 0 to 256 (got '${raw}')`);
  return workers;
}

/**
 * The keys of --trust or --keys-dir (default <data>/keys), plus every --log-key. What the user typed or
 * handed over (--trust, --log-key) that is not usable is a usage error; a keys folder that cannot be
 * read is a failure.
 */
function loadTrust(
  trustFile: string | undefined,
  keysDir: string | undefined,
  logKeys: string[],
): AuditTrust {
  for (const key of logKeys) {
    try {
      prepareTrust({ logVerifierKeys: [key], authorityPublicKeys: [], validatorPublicKeys: [] });
    } catch (error) {
      throw new UsageError(`--log-key: ${(error as Error).message}`);
    }
  }
  if (trustFile === undefined) {
    const trust = usable(
      trustFromPublishedKeys(readPublishedKeys(path.resolve(keysDir ?? defaultKeysDir()))),
    );
    return { ...trust, logVerifierKeys: [...trust.logVerifierKeys, ...logKeys] };
  }
  let text: string;
  try {
    text = fs.readFileSync(trustFile, 'utf8');
  } catch (error) {
    throw new Error(`${trustFile}: ${(error as Error).message}`);
  }
  try {
    const trust = usable(trustFromPublishedKeys(parsePublishedKeys(JSON.parse(text))));
    return { ...trust, logVerifierKeys: [...trust.logVerifierKeys, ...logKeys] };
  } catch (error) {
    if (error instanceof TrustError || error instanceof SyntaxError)
      throw new UsageError(`--trust ${trustFile}: ${error.message}`);
    throw error;
  }
}

/** The trust, once every key in it has been parsed (throws TrustError naming the key that is not). */
function usable(trust: AuditTrust): AuditTrust {
  prepareTrust(trust);
  return trust;
}

function defaultKeysDir(): string {
  return path.join(loadConfig().dataDir, 'keys');
}

function warnAboutEmptyTrust(trust: AuditTrust): void {
  const missing = [
    trust.logVerifierKeys.length === 0 && 'log',
    trust.authorityPublicKeys.length === 0 && 'authority',
    trust.validatorPublicKeys.length === 0 && 'validator',
  ].filter(Boolean);
  if (missing.length > 0)
    console.error(
      `gov audit: warning: no trusted ${missing.join(', ')} key: everything signed with one will be reported`,
    );
}
