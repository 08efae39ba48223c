/**
 * The browser entry point (WebCrypto only) verifies what the Node library produces: first under Node's
 * own WebCrypto, then in headless Chromium on a page served from a local HTTP server, with the entry
 * bundled by esbuild.
 */
import path from 'node:path';
import * as browser from './browser';
import { toBase64 } from './index';
import { bundleForBrowser, CHROMIUM, chromiumInstalled, runInChromium } from './test/browser-harness';
import { cosignedLog } from './test/signed-log';

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
}

async function makeFixture(): Promise<Fixture> {
  const { log, logKeys, witnessKeys, note } = await cosignedLog(ORIGIN, 1000, [
    'timestamp 1970-01-01T00:00:00.000Z',
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
};

describe('browser entry point under Node WebCrypto', () => {
  it('verifies proofs, checkpoints and cosignatures, and rejects tampered ones', async () => {
    expect(await runVerifiers(browser, await makeFixture())).toEqual(EXPECTED);
  });
});

describe('browser entry point bundled by esbuild', () => {
  it('bundles without Node APIs', async () => {
    const { inputs } = await bundleForBrowser(path.resolve(__dirname, 'browser.ts'));
    expect(inputs.filter((i) => /node:|node_modules|\/(hash|keys|tile-log)\.ts$/.test(i))).toEqual([]);
  });
});

if (!chromiumInstalled) {
  console.warn(`headless Chromium test skipped: ${CHROMIUM} is missing (apt-get install -y chromium)`);
  describe.skip(`browser entry point in Chromium (missing ${CHROMIUM})`, () => {
    it('needs Chromium', () => {});
  });
} else {
  describe('browser entry point in headless Chromium', () => {
    it('verifies a proof fetched from the local server, and rejects tampered data', async () => {
      const { script } = await bundleForBrowser(path.resolve(__dirname, 'browser.ts'));
      const { result, errors } = await runInChromium(script, runVerifiers, await makeFixture());
      expect(errors).toEqual([]);
      expect(result).toEqual(EXPECTED);
    });
  });
}
