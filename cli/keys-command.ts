import fs from 'node:fs';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { vaultMasterKeyId } from '../domain/platform/vault';
import { ADMISSION_EVENT_TYPES } from '../projectors/log/log-sequencer';
import { type Config, loadConfig } from '../runtime/config/config';
import {
  type CurrentKey,
  KeyFileError,
  keysDirOf,
  type PublicKeyInfo,
  readVaultMasterKey,
  VALIDATOR_COUNT,
} from '../runtime/keys/key-files';
import { generateKeys, KeyGenerationError } from '../runtime/keys/key-generation';
import {
  KeyHistoryError,
  type KeyListing,
  listKeys,
  publishedKeysOf,
  type RetiredKey,
} from '../runtime/keys/key-history';
import { KeyRotationError, type RotationTarget, rotateKeys } from '../runtime/keys/key-rotation';
import { KeysFolderBusyError } from '../runtime/keys/keys-lock';
import { listLogKeys } from '../runtime/keys/log-keys';
import { type CliCommand, EXIT, UsageError } from './command';
import { OperatorStoreError, withEventStore } from './stores';

const SYNOPSIS =
  'gov keys generate [--force] | show [--json] | rotate <log|authority|validator> [--validator N] [--json]';

const RESTART_NOTE =
  'A server reads its keys only when it starts: start it (again) to sign with the new keys.';

const HELP = `Usage:
  gov keys generate [--force]
  gov keys show [--json]
  gov keys rotate <log|authority|validator> [--validator N] [--json]

The node's signing keys live in <data>/keys (GOV_DATA_DIR, default ./data):
  log.key          the log's checkpoint key (C2SP signed-note key; its name is the log origin)
  authority.pem    the clearinghouse key signing every envelope (Ed25519)
  validator-N.pem  the ${VALIDATOR_COUNT} in-process validators voting on every bundle (Ed25519)
  history.json     the PUBLIC part of every retired key, so what it signed keeps verifying
  logs/<name>.key  the checkpoint key of each other log: logs/test.key (test-mode tenants' log,
                   created at the first start) and logs/dedicated-<hex>.key (an L4 tenant's log,
                   created by gov tenant tier <id> L4); its name is <log origin>/<name>

generate   creates every missing key (a server also does at its first start) and keeps existing
           ones. With --force it replaces existing keys too, but only while the event store holds
           nothing signed with them (no tree head, no admission): after that, rotate. The event
           store is the server's: EventStoreDB when GOV_EVENT_STORE_URL is set (it must answer),
           else its embedded file.
show       prints the log verifier key (C2SP note format), the authority key (node id) and the
           validator keys (validator id), each current or retired, with base64 SubjectPublicKeyInfo.
           --json prints exactly the published key set {log, authority, validators} auditors use.
           Without --json it also names the platform vault's master key by its id (never the key).
rotate     retires the key(s) and writes new ones. The old public key goes to history.json and the
           old private key is deleted: a retired key never signs again. 'validator' rotates all
           validators, or only number N (1-${VALIDATOR_COUNT}) with --validator N. A log rotation keeps the
           origin (the log's identity) and changes the key id; old tree heads keep verifying under the
           retired key, which GET /gov/v1/log/keys lists under "retired". Envelopes and certificates
           signed earlier verify under the retired authority and validator keys the same way.

Stop the server before rotating: rotate refuses while a server uses the keys folder (it would keep
signing with the keys it loaded). A server reads its keys only when it starts, so start it again
after a rotation to sign with the new keys. Until the next admission, the latest tree head is the
one signed with the retired log key. The webhook sealing key (webhook-secrets.key) is never
rotated. Nor is the platform vault's master key (vault-master.key, made at the first start unless
GOV_VAULT_KEY gives one): it wraps every user's vault data key, so generate --force keeps it too.
Key writes are atomic, and two gov keys commands never write one folder at once.

Exit codes: 0 done, 1 failed (a server or another gov keys command uses the folder, a key is
missing or unreadable, --force on keys that signed), 2 usage error.`;

export const keysCommand: CliCommand = {
  name: 'keys',
  synopsis: SYNOPSIS,
  summary: 'generate, show and rotate the log, authority and validator keys (retired keys kept)',
  help: HELP,
  async run(args) {
    const [action, ...rest] = args;
    try {
      switch (action) {
        case 'generate':
          return await generate(rest);
        case 'show':
          return show(rest);
        case 'rotate':
          return await rotate(rest);
        default:
          throw new UsageError(
            action ? `unknown action '${action}': use generate, show or rotate` : `usage: ${SYNOPSIS}`,
          );
      }
    } catch (error) {
      if (
        error instanceof KeysFolderBusyError ||
        error instanceof KeyRotationError ||
        error instanceof KeyGenerationError ||
        error instanceof KeyHistoryError ||
        error instanceof KeyFileError
      ) {
        console.error(`gov keys ${action}: ${error.message}`);
        return EXIT.failure;
      }
      throw error;
    }
  },
};

// ---- generate --------------------------------------------------------------------------------------

/**
 * Whether the configured event store (EventStoreDB, or the embedded file when there is one) holds a tree
 * head or an admission: signatures made with the current keys. One that cannot be read fails the
 * command: replacing keys is safe only when it is known to hold none.
 */
async function holdsSignedEvents(config: Config): Promise<boolean> {
  if (!config.eventStoreUrl && !fs.existsSync(config.eventStoreFile)) return false;
  try {
    return await withEventStore(
      async (store) =>
        (await store.headPosition({ eventTypes: ['TreeHeadSigned', ...ADMISSION_EVENT_TYPES] })) > 0,
      config,
    );
  } catch (error) {
    if (!(error instanceof OperatorStoreError)) throw error;
    throw new OperatorStoreError(
      `cannot tell whether the event store holds anything signed with the keys, so nothing was changed: ${error.message}`,
    );
  }
}

async function generate(args: string[]): Promise<number> {
  const { values } = parseArgs({ args, options: { force: { type: 'boolean' } } });
  const config = loadConfig();
  const keysDir = keysDirOf(config.dataDir);
  const signed = await holdsSignedEvents(config);
  const results = await generateKeys(keysDir, {
    logOrigin: config.logOrigin,
    force: Boolean(values.force),
    signed,
  });
  console.log(`Keys in ${keysDir}:`);
  for (const { file, outcome } of results) console.log(`  ${outcome.padEnd(8)}  ${path.basename(file)}`);
  const fresh = results.filter((r) => r.outcome !== 'kept');
  if (signed && fresh.length > 0)
    console.error(
      `warning: ${fresh.map((r) => path.basename(r.file)).join(', ')} did not exist although the event store ` +
        'holds signed events: what the lost key signed cannot be verified under the new one. Restore the ' +
        'key from a backup of the keys folder if there is one.',
    );
  if (fresh.length > 0) console.log(RESTART_NOTE);
  else
    console.log('Every key exists; nothing changed (gov keys rotate replaces a key and keeps its history).');
  return EXIT.ok;
}

// ---- show ------------------------------------------------------------------------------------------

function show(args: string[]): number {
  const { values } = parseArgs({ args, options: { json: { type: 'boolean' } } });
  const config = loadConfig();
  const keysDir = keysDirOf(config.dataDir);
  const listing = listKeys(keysDir);
  if (values.json) console.log(JSON.stringify(publishedKeysOf(listing), null, 2));
  else
    console.log(
      [
        describeListing(keysDir, listing),
        '',
        ...describeLogKeys(keysDir),
        '',
        ...describeVaultKey(keysDir, config),
      ].join('\n'),
    );
  return EXIT.ok;
}

/**
 * The platform vault's master key by its id (an HMAC of it, never the key): the processes of a
 * deployment must show the same id, or one of them opens no stored model key.
 */
function describeVaultKey(keysDir: string, config: Config): string[] {
  const title = 'Vault master key (its id: every process of a deployment must show the same one)';
  if (config.vaultKey) return [title, `  ${vaultMasterKeyId(config.vaultKey)}  (GOV_VAULT_KEY)`];
  const file = path.join(keysDir, 'vault-master.key');
  if (!fs.existsSync(file)) return [title, '  (missing: gov keys generate, or the first start, creates it)'];
  return [title, `  ${vaultMasterKeyId(readVaultMasterKey(keysDir))}  (${file})`];
}

/** One key on one line: status, what it is, its public part, its dates. */
function keyLine(
  info: PublicKeyInfo,
  dates: { created_at: string; retired_at?: string },
  status: string,
): string {
  const when = `created ${dates.created_at}${dates.retired_at ? `, retired ${dates.retired_at}` : ''}`;
  switch (info.kind) {
    case 'log':
      return `  ${status}  ${info.verifier_key}  (${when})`;
    case 'authority':
      return `  ${status}  ${info.node_id}  ${info.public_key}  (${when})`;
    case 'validator':
      return `  ${status}  validator ${info.slot}  ${info.validator_id}  ${info.public_key}  (${when})`;
  }
}

function describeListing(keysDir: string, listing: KeyListing): string {
  const section = (kind: PublicKeyInfo['kind'], title: string, expected: number): string[] => {
    const current = listing.current.filter((key: CurrentKey) => key.info.kind === kind);
    const retired = listing.retired.filter((key: RetiredKey) => key.kind === kind);
    const lines = [title];
    lines.push(...current.map((key) => keyLine(key.info, key, 'current')));
    if (current.length < expected)
      lines.push(`  (${expected - current.length} missing: gov keys generate creates them)`);
    lines.push(...retired.map((key) => keyLine(key, key, 'retired')));
    return lines;
  };
  return [
    `Keys in ${keysDir}`,
    '',
    ...section('log', 'Log key (C2SP signed-note verifier key: <origin>+<key id>+<base64>)', 1),
    '',
    ...section('authority', 'Authority key (node id, base64 Ed25519 SubjectPublicKeyInfo)', 1),
    '',
    ...section(
      'validator',
      'Validator keys (validator id, base64 Ed25519 SubjectPublicKeyInfo)',
      VALIDATOR_COUNT,
    ),
  ].join('\n');
}

/** The keys of the logs other than the shared one (keys/logs/<name>.key), one line each. */
function describeLogKeys(keysDir: string): string[] {
  const keys = listLogKeys(keysDir);
  return [
    "Keys of the other logs (test log, dedicated logs; the shared log's is the log key above)",
    ...(keys.length === 0
      ? ["  (none yet: a server creates the test log's at its first start)"]
      : keys.map((key) => `  ${key.log.padEnd(34)}  ${key.verifier_key}  (created ${key.created_at})`)),
  ];
}

// ---- rotate ----------------------------------------------------------------------------------------

function rotationTarget(positionals: string[], validator: string | undefined): RotationTarget {
  const [kind, ...extra] = positionals;
  if (!kind || extra.length > 0)
    throw new UsageError('name one key kind to rotate: gov keys rotate <log|authority|validator>');
  if (kind !== 'log' && kind !== 'authority' && kind !== 'validator')
    throw new UsageError(`cannot rotate '${kind}': the kinds are log, authority and validator`);
  if (validator === undefined) return { kind };
  if (kind !== 'validator') throw new UsageError('--validator goes with gov keys rotate validator');
  const number = Number(validator);
  if (!/^\d+$/.test(validator) || number < 1 || number > VALIDATOR_COUNT)
    throw new UsageError(
      `--validator must be a validator number from 1 to ${VALIDATOR_COUNT} (got '${validator}')`,
    );
  return { kind, validator: number };
}

function publicPart(info: PublicKeyInfo): string {
  if (info.kind === 'log') return info.verifier_key;
  if (info.kind === 'authority') return `${info.node_id}  ${info.public_key}`;
  return `${info.validator_id}  ${info.public_key}`;
}

async function rotate(args: string[]): Promise<number> {
  const { values, positionals } = parseArgs({
    args,
    allowPositionals: true,
    options: { validator: { type: 'string' }, json: { type: 'boolean' } },
  });
  const target = rotationTarget(positionals, values.validator);
  const keysDir = keysDirOf(loadConfig().dataDir);
  const rotations = await rotateKeys(keysDir, target);
  if (values.json) {
    console.log(JSON.stringify({ rotated: rotations, restart_required: true }, null, 2));
    return EXIT.ok;
  }
  for (const { slot, retired, current } of rotations) {
    console.log(`Rotated ${slot}:`);
    console.log(`  retired  ${publicPart(retired)}`);
    console.log(`  current  ${publicPart(current)}`);
  }
  console.log(
    `The retired public keys are kept in ${path.join(keysDir, 'history.json')} and published by ` +
      'gov keys show and GET /gov/v1/log/keys; what they signed keeps verifying under them.',
  );
  console.log(RESTART_NOTE);
  return EXIT.ok;
}
