import fs from 'node:fs';
import { parseArgs } from 'node:util';
import { KeyFormatError, loadVerifierKey, SIGNATURE_TYPE_ED25519, type VerifierKey } from '../merkle-core';
import { followLog } from '../witness/follow-loop';
import { type RoundOutcome, WitnessFollower } from '../witness/follower';
import { HttpLogClient, LogClientError, logBaseUrl } from '../witness/log-client';
import { formatOutcome, outcomeJson } from '../witness/report';
import { FileWitnessStateStore, WitnessStateError } from '../witness/state-file';
import { StateLockBusyError } from '../witness/state-lock';
import {
  createWitnessKey,
  defaultWitnessName,
  loadOrCreateWitnessKey,
  type WitnessKey,
  WitnessKeyError,
} from '../witness/witness-key';
import { type CliCommand, EXIT, UsageError } from './command';

const DEFAULT_KEY_FILE = 'witness.key';
const DEFAULT_STATE_FILE = 'witness-state.json';
const DEFAULT_INTERVAL_SECONDS = 60;
const MAX_INTERVAL_SECONDS = 86_400;

const USAGE = `gov witness --log URL [--log-name NAME] --log-key VKEY [--key FILE] [--state FILE] [--name NAME] [--interval S] [--once] [--json]
       gov witness keygen [--out FILE] [--name NAME] [--json]`;

export const witnessCommand: CliCommand = {
  name: 'witness',
  synopsis: 'gov witness --log URL --log-key VKEY [--once] [--json] | gov witness keygen',
  summary: "follow a log's checkpoints and cosign only consistent ones (C2SP tlog-cosignature)",
  help: `Usage: ${USAGE}

A witness keeps a log honest: it cosigns a checkpoint only after verifying the log's signature and a
consistency proof from the last tree it cosigned, so it never signs two views of the log. Each round
fetches <URL>/checkpoint, verifies it with the log key, fetches <URL>/consistency?from=M&to=N, and if
the new tree extends the old one, writes its state file, then POSTs its cosignature (cosignature/v1)
to <URL>/witness-signatures, where the log serves it in its STH and checkpoint. The log accepts
cosignatures only from the witness keys its operator lists in GOV_WITNESS_KEYS.

If the checkpoint is badly signed, smaller than the cosigned tree, or not consistent with it, the
witness refuses: it signs nothing, keeps its state, and prints a report (origin, sizes, roots, why,
and the refused checkpoint as evidence).

Options:
  --log URL        the log's URL, as admissions name it (log_url), e.g. https://gov.example/gov/v1/log
                   (the shared log) or https://gov.example/gov/v1/logs/test; a bare server URL means
                   its shared log, or the log --log-name names
  --log-name NAME  with a bare server URL, follow its log NAME (shared, test, dedicated-<24 hex>) at
                   /gov/v1/logs/NAME; with a log's URL, it must be that log's
  --log-key VKEY   the log's verifier key <origin>+<key id>+<base64> (GET <log URL>/keys, "log"), or a
                   file holding it; obtain it out of band: it is what the checkpoints are checked with.
                   Each log has its own key and origin (<shared origin>/<name> for a log other than
                   the shared one)
  --key FILE       the witness's own key (default ${DEFAULT_KEY_FILE}); created on first use, printing
                   its verifier key for the log operator's GOV_WITNESS_KEYS
  --name NAME      the key name when the key is created (default ${defaultWitnessName()})
  --state FILE     the witness's memory: last cosigned size and root per log, by origin (default
                   ${DEFAULT_STATE_FILE}): one file can hold every log the witness follows.
                   Back it up and never delete it: a witness without it treats every log as new.
                   One process at a time uses it (a .lock file next to it).
  --interval S     seconds between rounds when following (default ${DEFAULT_INTERVAL_SECONDS})
  --once           run one round and exit, instead of following until SIGINT/SIGTERM
  --json           print each round as one JSON object per line

gov witness keygen writes a new witness key to --out (default ${DEFAULT_KEY_FILE}; never overwrites)
and prints its verifier key.

Exit codes: 0 cosigned or already cosigned (--once), or stopped by a signal; 1 failed (log
unreachable, log refused the cosignature, unusable key or state file); 2 usage error; 3 refused to
cosign an inconsistent or badly signed checkpoint (--once).`,
  async run(args) {
    const { values, positionals } = parseArgs({
      args,
      allowPositionals: true,
      options: {
        log: { type: 'string' },
        'log-name': { type: 'string' },
        'log-key': { type: 'string' },
        key: { type: 'string' },
        state: { type: 'string' },
        name: { type: 'string' },
        interval: { type: 'string' },
        once: { type: 'boolean' },
        json: { type: 'boolean' },
        out: { type: 'string' },
      },
    });
    const json = Boolean(values.json);
    const name = values.name ?? defaultWitnessName();
    if (positionals[0] === 'keygen') {
      if (positionals.length > 1) throw new UsageError(`usage: ${USAGE}`);
      return keygen(values.out ?? DEFAULT_KEY_FILE, name, json);
    }
    if (positionals.length > 0) throw new UsageError(`unexpected ${positionals.join(' ')}; usage: ${USAGE}`);
    if (values.out !== undefined) throw new UsageError('--out belongs to `gov witness keygen`');
    if (!values.log) throw new UsageError('--log URL is required: the log to follow');
    if (!values['log-key'])
      throw new UsageError('--log-key VKEY is required: the log key checkpoints are checked with');
    let url: string;
    try {
      url = logBaseUrl(values.log, values['log-name']);
    } catch (error) {
      throw new UsageError((error as Error).message);
    }
    const logKey = readLogKey(values['log-key']);
    const intervalMs = parseInterval(values.interval);
    return witness({
      url,
      logKey,
      keyFile: values.key ?? DEFAULT_KEY_FILE,
      stateFile: values.state ?? DEFAULT_STATE_FILE,
      name,
      intervalMs,
      once: Boolean(values.once),
      json,
    });
  },
};

interface WitnessRun {
  url: string;
  logKey: VerifierKey;
  keyFile: string;
  stateFile: string;
  name: string;
  intervalMs: number;
  once: boolean;
  json: boolean;
}

async function witness(run: WitnessRun): Promise<number> {
  let key: WitnessKey;
  let state: FileWitnessStateStore;
  try {
    key = loadOrCreateWitnessKey(run.keyFile, run.name);
    state = FileWitnessStateStore.open(run.stateFile);
  } catch (error) {
    const known = [WitnessKeyError, WitnessStateError, StateLockBusyError];
    if (known.some((type) => error instanceof type)) {
      console.error(`gov witness: ${(error as Error).message}`);
      return EXIT.failure;
    }
    throw error;
  }
  if (key.created) {
    console.error(
      `gov witness: created the witness key ${key.file}; its verifier key, for the log operator's GOV_WITNESS_KEYS:\n${key.verifierKey}`,
    );
  }
  const follower = new WitnessFollower({
    client: new HttpLogClient(run.url),
    logKey: run.logKey,
    cosigner: key.signer,
    state,
  });
  const print = (outcome: RoundOutcome, stamp: string) => {
    if (run.json)
      console.log(
        JSON.stringify({ ...(stamp ? { time: stamp } : {}), ...outcomeJson(outcome, key.verifierKey) }),
      );
    else
      for (const line of formatOutcome(outcome, run.stateFile))
        console.log(stamp ? `${stamp} ${line}` : line);
  };
  // Only the log's failures are reported and retried; anything else (the state file cannot be
  // written…) ends the command.
  const printError = (error: unknown, stamp: string) => {
    if (!(error instanceof LogClientError)) throw error;
    const { message } = error;
    if (run.json)
      console.log(
        JSON.stringify({
          ...(stamp ? { time: stamp } : {}),
          outcome: 'error',
          origin: follower.origin,
          message,
        }),
      );
    console.error(`${stamp ? `${stamp} ` : ''}gov witness: ${message}`);
  };
  try {
    if (run.once) {
      let outcome: RoundOutcome;
      try {
        outcome = await follower.round();
      } catch (error) {
        printError(error, '');
        return EXIT.failure;
      }
      print(outcome, '');
      return outcome.kind === 'refused' ? EXIT.discrepancies : EXIT.ok;
    }
    const stop = new AbortController();
    const onSignal = () => stop.abort();
    process.once('SIGINT', onSignal);
    process.once('SIGTERM', onSignal);
    try {
      await followLog({
        follower,
        intervalMs: run.intervalMs,
        signal: stop.signal,
        onOutcome: (outcome) => print(outcome, new Date().toISOString()),
        onError: (error) => printError(error, new Date().toISOString()),
      });
    } finally {
      process.off('SIGINT', onSignal);
      process.off('SIGTERM', onSignal);
    }
    return EXIT.ok;
  } finally {
    state.close();
  }
}

function keygen(file: string, name: string, json: boolean): number {
  let key: WitnessKey;
  try {
    key = createWitnessKey(file, name);
  } catch (error) {
    if (!(error instanceof WitnessKeyError)) throw error;
    console.error(`gov witness keygen: ${error.message}`);
    return EXIT.failure;
  }
  if (json) console.log(JSON.stringify({ key_file: key.file, verifier_key: key.verifierKey }));
  else {
    console.error(`wrote ${key.file}; give the log operator this verifier key for GOV_WITNESS_KEYS:`);
    console.log(key.verifierKey);
  }
  return EXIT.ok;
}

/** The log key from the option: the key itself, or a file holding it. */
function readLogKey(value: string): VerifierKey {
  const text = fs.existsSync(value) ? fs.readFileSync(value, 'utf8').trim() : value;
  let key: VerifierKey;
  try {
    key = loadVerifierKey(text);
  } catch (error) {
    if (!(error instanceof KeyFormatError)) throw error;
    throw new UsageError(
      `--log-key is not a note verifier key <origin>+<key id>+<base64> (nor a file holding one): ${error.message}`,
    );
  }
  if (key.type !== SIGNATURE_TYPE_ED25519)
    throw new UsageError(
      '--log-key is a witness (cosignature/v1) key; give the log key (GET /gov/v1/log/keys, "log")',
    );
  return key;
}

function parseInterval(value: string | undefined): number {
  if (value === undefined) return DEFAULT_INTERVAL_SECONDS * 1000;
  const seconds = Number(value);
  if (value.trim() === '' || !Number.isFinite(seconds) || seconds <= 0 || seconds > MAX_INTERVAL_SECONDS)
    throw new UsageError(
      `--interval must be a number of seconds above 0 and at most ${MAX_INTERVAL_SECONDS} (got '${value}')`,
    );
  return seconds * 1000;
}
