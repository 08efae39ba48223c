/**
 * A signing thread of the audit fixture. It owns some tenants, decides their requests with the server's
 * keys (four validator votes and one authority signature per admission: the expensive part) and posts
 * them as rounds, one append per tenant, like a server busy with many clients. The main thread appends
 * each round in one group commit and answers with a credit; a thread never runs more than its credits
 * ahead, so memory stays bounded whatever the appender's speed.
 */
import fs from 'node:fs';
import path from 'node:path';
import { parentPort, workerData } from 'node:worker_threads';
import { authorityNodeIdOf } from '../domain/governance/envelope';
import { createLocalValidators } from '../domain/governance/validators';
import { loadOrCreateKeyring } from '../runtime/keys/keyring';
import { type AdmissionSigners, SimulatedTenant, type StreamAppend } from './audit-fixture-tenant';

export interface SignerThreadSettings {
  /** The fixture's data folder; its `keys` folder must already hold the keyring. */
  dataDir: string;
  logOrigin: string;
  publicUrl: string;
  /** The tenants this thread owns: their index in the plan and how many leaves each admits. */
  tenants: { index: number; quota: number }[];
  /** Tenants that send one request in each round. */
  clientsPerRound: number;
  /** Rounds a thread may post before the main thread acknowledges one. */
  credits: number;
}

/** Thread → main. */
export type SignerThreadMessage =
  | { type: 'round'; appends: StreamAppend[]; leaves: number }
  | { type: 'done' }
  | { type: 'failed'; message: string; stack?: string };

/** Main → thread: one posted round is committed. */
export interface SignerThreadCredit {
  type: 'credit';
}

export function admissionSignersOf(dataDir: string, logOrigin: string, publicUrl: string): AdmissionSigners {
  const keysDir = path.join(dataDir, 'keys');
  // loadOrCreateKeyring would quietly make new keys: a signing thread must use the fixture's own.
  if (!fs.existsSync(path.join(keysDir, 'log.key')))
    throw new Error(`${keysDir} holds no keyring: create it (loadOrCreateKeyring) before starting threads`);
  const keyring = loadOrCreateKeyring(dataDir, logOrigin);
  return {
    validators: createLocalValidators(keyring.validators),
    authority: {
      privateKey: keyring.authority.privateKey,
      nodeId: authorityNodeIdOf(keyring.authority.publicKey),
    },
    logBinding: () => ({ log_id: keyring.logSigner.verifierKey, log_url: `${publicUrl}/gov/v1/log` }),
    publicUrl,
  };
}

/** Runs the thread's tenants to the end of their quotas, posting one round at a time. */
async function run(settings: SignerThreadSettings, port: NonNullable<typeof parentPort>): Promise<void> {
  let credits = settings.credits;
  let wake: (() => void) | null = null;
  port.on('message', (message: SignerThreadCredit) => {
    if (message.type !== 'credit') return;
    credits++;
    wake?.();
  });
  const creditsAtLeast = async (wanted: number) => {
    while (credits < wanted) await new Promise<void>((resolve) => (wake = resolve));
    wake = null;
  };
  const post = async (message: SignerThreadMessage) => {
    await creditsAtLeast(1);
    credits--;
    port.postMessage(message);
  };

  const signers = admissionSignersOf(settings.dataDir, settings.logOrigin, settings.publicUrl);
  const tenants = settings.tenants.map((t) => new SimulatedTenant(t.index, t.quota, signers));
  await post({ type: 'round', appends: tenants.flatMap((t) => t.register(new Date())), leaves: 0 });

  let active = tenants.filter((t) => !t.done);
  let next = 0;
  while (active.length > 0) {
    const appends: StreamAppend[] = [];
    let leaves = 0;
    const clients = Math.min(settings.clientsPerRound, active.length);
    for (let i = 0; i < clients; i++) {
      const tenant = active[(next + i) % active.length]!;
      const outcome = await tenant.request(new Date());
      appends.push(outcome.append);
      leaves += outcome.leaves;
    }
    next = (next + clients) % active.length;
    if (active.some((t) => t.done)) {
      active = active.filter((t) => !t.done);
      next = active.length > 0 ? next % active.length : 0;
    }
    await post({ type: 'round', appends, leaves });
  }
  // Every round committed first: `done` then means this thread's part of the store is written.
  await creditsAtLeast(settings.credits);
  port.postMessage({ type: 'done' } satisfies SignerThreadMessage);
}

if (parentPort && (workerData as { auditFixtureSigner?: SignerThreadSettings } | null)?.auditFixtureSigner) {
  const port = parentPort;
  run((workerData as { auditFixtureSigner: SignerThreadSettings }).auditFixtureSigner, port).catch(
    (error: unknown) => {
      const failure = error instanceof Error ? error : new Error(String(error));
      port.postMessage({
        type: 'failed',
        message: failure.message,
        stack: failure.stack,
      } satisfies SignerThreadMessage);
    },
  );
}
