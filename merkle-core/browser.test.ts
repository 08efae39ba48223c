/**
 * The browser entry point (WebCrypto only) verifies what the Node library produces: first under Node's
 * own WebCrypto, then in headless Chromium on a page served from a local HTTP server, with the entry
 * bundled by esbuild.
 */
import { existsSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import * as browser from './browser';
import {
  addSignatureLines,
  cosignatureLine,
  generateKeyPair,
  loadSignerKey,
  SIGNATURE_TYPE_COSIGNATURE_V1,
  signCheckpoint,
  sthFromCheckpointNote,
  TileLog,
  timestampExtension,
  toBase64,
} from './index';

const CHROMIUM = '/usr/bin/chromium';
const ORIGIN = 'example.org/browser-log';

/** Everything a dashboard would fetch: a proof of each kind, signed notes, an STH and the keys. */
interface Fixture {
  logKey: string;
  witnessKey: string;
  leafHash: string;
  index: number;
  size: number;
  oldSize: number;
  inclusion: string[];
  consistency: string[];
  root: string;
  oldRoot: string;
  note: string;
  sth: ReturnType<typeof sthFromCheckpointNote>;
}

async function makeFixture(): Promise<Fixture> {
  const log = new TileLog();
  await log.appendLeaves(Array.from({ length: 1000 }, (_, i) => new TextEncoder().encode(`record ${i}`)));
  const logKeys = generateKeyPair(ORIGIN);
  const witnessKeys = generateKeyPair('witness.example.org', SIGNATURE_TYPE_COSIGNATURE_V1);
  const signed = signCheckpoint(
    { origin: ORIGIN, size: 1000, rootHash: log.root(), extensions: [timestampExtension(new Date(0))] },
    loadSignerKey(logKeys.signerKey),
  );
  const note = addSignatureLines(signed, [
    cosignatureLine(signed, loadSignerKey(witnessKeys.signerKey), 1_700_000_000),
  ]);
  const b64 = (hashes: Uint8Array[]): string[] => hashes.map(toBase64);
  return {
    logKey: logKeys.verifierKey,
    witnessKey: witnessKeys.verifierKey,
    leafHash: toBase64(log.leafHash(777)),
    index: 777,
    size: 1000,
    oldSize: 613,
    inclusion: b64(log.inclusionProof(777)),
    consistency: b64(log.consistencyProof(613)),
    root: toBase64(log.root()),
    oldRoot: toBase64(log.root(613)),
    note,
    sth: sthFromCheckpointNote(note, logKeys.verifierKey),
  };
}

/** Runs every verifier on the fixture and on tampered copies; returns the verdicts by name. */
async function runVerifiers(lib: typeof browser, f: Fixture): Promise<Record<string, boolean>> {
  const h = lib.fromBase64;
  const flip = (b64: string): Uint8Array => {
    const bytes = h(b64);
    bytes[0]! ^= 1;
    return bytes;
  };
  const logKey = await lib.loadVerifierKey(f.logKey);
  const witnessKey = await lib.loadVerifierKey(f.witnessKey);
  const inclusion = f.inclusion.map(h);
  const consistency = f.consistency.map(h);
  const tamperedNote = f.note.replace(`\n${f.size}\n`, `\n${f.size + 1}\n`);
  return {
    inclusion: (await lib.verifyInclusion(f.index, f.size, h(f.leafHash), inclusion, h(f.root))).ok,
    inclusionTampered: (
      await lib.verifyInclusion(
        f.index,
        f.size,
        h(f.leafHash),
        [flip(f.inclusion[0]!), ...inclusion.slice(1)],
        h(f.root),
      )
    ).ok,
    inclusionWrongIndex: (await lib.verifyInclusion(f.index + 1, f.size, h(f.leafHash), inclusion, h(f.root)))
      .ok,
    consistency: (await lib.verifyConsistency(f.oldSize, f.size, consistency, h(f.oldRoot), h(f.root))).ok,
    consistencyTampered: (
      await lib.verifyConsistency(f.oldSize, f.size, consistency, flip(f.oldRoot), h(f.root))
    ).ok,
    checkpoint: (await lib.verifyCheckpoint(f.note, logKey)).ok,
    checkpointTampered: (await lib.verifyCheckpoint(tamperedNote, logKey)).ok,
    cosignature: (await lib.verifyCosignature(f.note, witnessKey)).ok,
    cosignatureTampered: (await lib.verifyCosignature(tamperedNote, witnessKey)).ok,
    sth: (await lib.verifySth(f.sth, logKey)).ok,
    sthTampered: (await lib.verifySth({ ...f.sth, tree_size: f.sth.tree_size - 1 }, logKey)).ok,
  };
}

const EXPECTED = {
  inclusion: true,
  inclusionTampered: false,
  inclusionWrongIndex: false,
  consistency: true,
  consistencyTampered: false,
  checkpoint: true,
  checkpointTampered: false,
  cosignature: true,
  cosignatureTampered: false,
  sth: true,
  sthTampered: false,
};

describe('browser entry point under Node WebCrypto', () => {
  it('verifies proofs, checkpoints, cosignatures and STHs, and rejects tampered ones', async () => {
    expect(await runVerifiers(browser, await makeFixture())).toEqual(EXPECTED);
  });
});

if (!existsSync(CHROMIUM)) {
  console.warn(`headless Chromium test skipped: ${CHROMIUM} is missing (apt-get install -y chromium)`);
  describe.skip(`browser entry point in Chromium (missing ${CHROMIUM})`, () => {
    it('needs Chromium', () => {});
  });
} else {
  describe('browser entry point in headless Chromium', () => {
    let server: Server;
    let baseUrl: string;

    beforeAll(async () => {
      const { build } = require('esbuild') as typeof import('esbuild');
      const bundled = await build({
        entryPoints: [path.resolve(__dirname, 'browser.ts')],
        bundle: true,
        format: 'iife',
        globalName: 'MerkleCore',
        platform: 'browser',
        target: 'es2022',
        write: false,
      });
      const script = bundled.outputFiles[0]!.text;
      // The verifier code is sent to the page as source, so it is the same function the Node test ran.
      const runner = `window.runVerifiers = ${runVerifiers.toString()};`;
      const fixture = JSON.stringify(await makeFixture());
      const routes: Record<string, [string, string]> = {
        '/': [
          'text/html',
          '<!doctype html><script src="/merkle-core.js"></script><script src="/runner.js"></script>',
        ],
        '/merkle-core.js': ['text/javascript', script],
        '/runner.js': ['text/javascript', runner],
        '/fixture.json': ['application/json', fixture],
      };
      server = createServer((req, res) => {
        const route = routes[req.url ?? ''];
        res.writeHead(route ? 200 : 404, { 'content-type': route?.[0] ?? 'text/plain' });
        res.end(route?.[1] ?? 'not found');
      });
      await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
      baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    });

    afterAll(async () => {
      await new Promise((resolve) => server?.close(resolve));
    });

    it('bundles without Node APIs', async () => {
      const { build } = require('esbuild') as typeof import('esbuild');
      const result = await build({
        entryPoints: [path.resolve(__dirname, 'browser.ts')],
        bundle: true,
        format: 'iife',
        platform: 'browser',
        write: false,
        metafile: true,
      });
      const inputs = Object.keys(result.metafile.inputs);
      expect(inputs.filter((i) => /node:|node_modules|\/(hash|keys|tile-log)\.ts$/.test(i))).toEqual([]);
    });

    it('verifies a proof fetched from the local server, and rejects tampered data', async () => {
      const { chromium } = require('playwright-core') as typeof import('playwright-core');
      const instance = await chromium.launch({
        executablePath: CHROMIUM,
        args: [
          '--headless',
          '--no-sandbox',
          '--disable-gpu',
          '--disable-quic',
          '--no-first-run',
          '--disable-background-networking',
          '--disable-component-update',
          '--disable-sync',
        ],
      });
      try {
        const page = await instance.newPage();
        const errors: string[] = [];
        page.on('pageerror', (e) => errors.push(e.message));
        await page.goto(`${baseUrl}/`);
        const verdicts = await page.evaluate(async () => {
          const w = window as unknown as {
            MerkleCore: typeof browser;
            runVerifiers: typeof runVerifiers;
          };
          const fixture = (await (await fetch('/fixture.json')).json()) as Fixture;
          return w.runVerifiers(w.MerkleCore, fixture);
        });
        expect(errors).toEqual([]);
        expect(verdicts).toEqual(EXPECTED);
      } finally {
        await instance.close();
      }
    });
  });
}
