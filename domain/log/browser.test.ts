/**
 * The log's browser verifier checks the JSON STH with WebCrypto alone: under Node's own WebCrypto,
 * then bundled by esbuild (with no Node code in the bundle) in headless Chromium.
 */
import path from 'node:path';
import {
  bundleForBrowser,
  CHROMIUM,
  chromiumInstalled,
  runInChromium,
} from '../../merkle-core/test/browser-harness';
import { cosignedLog } from '../../merkle-core/test/signed-log';
import * as browser from './browser';
import { type JsonSth, sthFromCheckpointNote, timestampExtension } from './index';

const ORIGIN = 'example.org/browser-log';

interface Fixture {
  logKey: string;
  sth: JsonSth;
}

async function makeFixture(): Promise<Fixture> {
  const { logKeys, note } = await cosignedLog(ORIGIN, 100, [timestampExtension(new Date(0))]);
  return { logKey: logKeys.verifierKey, sth: sthFromCheckpointNote(note, logKeys.verifierKey) };
}

/** Verifies the STH and tampered copies; runs in Node and, as source, in the page. */
async function runVerifiers(lib: typeof browser, f: Fixture): Promise<Record<string, boolean>> {
  const logKey = await lib.loadVerifierKey(f.logKey);
  const note = lib.checkpointNoteFromSth(f.sth);
  return {
    sth: (await lib.verifySth(f.sth, logKey)).ok,
    sthTampered: (await lib.verifySth({ ...f.sth, tree_size: f.sth.tree_size - 1 }, logKey)).ok,
    noteRoundTrip: JSON.stringify(lib.sthFromCheckpointNote(note, f.logKey)) === JSON.stringify(f.sth),
    checkpoint: (await lib.verifyCheckpoint(note, logKey)).ok,
  };
}

const EXPECTED = { sth: true, sthTampered: false, noteRoundTrip: true, checkpoint: true };

describe('the log browser verifier under Node WebCrypto', () => {
  it('verifies the STH, rejects a tampered one, and spells it as the note it came from', async () => {
    expect(await runVerifiers(browser, await makeFixture())).toEqual(EXPECTED);
  });
});

describe('the log browser verifier bundled by esbuild', () => {
  it('bundles without Node APIs', async () => {
    const { inputs } = await bundleForBrowser(path.resolve(__dirname, 'browser.ts'));
    expect(inputs.filter((i) => /node:|node_modules|\/(hash|keys|tile-log|record)\.ts$/.test(i))).toEqual([]);
    expect(inputs).toContain('domain/log/sth.ts');
  });
});

if (!chromiumInstalled) {
  console.warn(`headless Chromium test skipped: ${CHROMIUM} is missing (apt-get install -y chromium)`);
  describe.skip(`the log browser verifier in Chromium (missing ${CHROMIUM})`, () => {
    it('needs Chromium', () => {});
  });
} else {
  describe('the log browser verifier in headless Chromium', () => {
    it('verifies the STH and rejects a tampered one', async () => {
      const { script } = await bundleForBrowser(path.resolve(__dirname, 'browser.ts'));
      const { result, errors } = await runInChromium(script, runVerifiers, await makeFixture());
      expect(errors).toEqual([]);
      expect(result).toEqual(EXPECTED);
    });
  });
}
