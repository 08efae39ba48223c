/**
 * Test support for browser entry points: bundle an entry with esbuild (as a page would load it), and
 * run a verifier function on a fixture in headless Chromium, on a page served from a local HTTP server.
 */
import { existsSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';

export const CHROMIUM = '/usr/bin/chromium';
export const chromiumInstalled = existsSync(CHROMIUM);

/** The entry bundled for browsers, exposed as `window.MerkleCore`, and every file it pulled in. */
export async function bundleForBrowser(entry: string): Promise<{ script: string; inputs: string[] }> {
  const { build } = require('esbuild') as typeof import('esbuild');
  const bundled = await build({
    entryPoints: [entry],
    bundle: true,
    format: 'iife',
    globalName: 'MerkleCore',
    platform: 'browser',
    target: 'es2022',
    write: false,
    metafile: true,
  });
  return { script: bundled.outputFiles[0]!.text, inputs: Object.keys(bundled.metafile.inputs) };
}

/**
 * Loads `script` in a page, then calls `run(window.MerkleCore, fixture)` there (`run` is sent as
 * source, so it is the same function a Node test can call). Returns its result and the page's errors.
 */
export async function runInChromium<F, R>(
  script: string,
  run: (lib: never, fixture: F) => Promise<R>,
  fixture: F,
): Promise<{ result: R; errors: string[] }> {
  const routes: Record<string, [string, string]> = {
    '/': [
      'text/html',
      '<!doctype html><script src="/merkle-core.js"></script><script src="/runner.js"></script>',
    ],
    '/merkle-core.js': ['text/javascript', script],
    '/runner.js': ['text/javascript', `window.runVerifiers = ${run.toString()};`],
    '/fixture.json': ['application/json', JSON.stringify(fixture)],
  };
  const server = createServer((req, res) => {
    const route = routes[req.url ?? ''];
    res.writeHead(route ? 200 : 404, { 'content-type': route?.[0] ?? 'text/plain' });
    res.end(route?.[1] ?? 'not found');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
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
    await page.goto(`http://127.0.0.1:${(server.address() as AddressInfo).port}/`);
    const result = (await page.evaluate(async () => {
      const w = window as unknown as {
        MerkleCore: never;
        runVerifiers: (lib: never, fixture: unknown) => Promise<unknown>;
      };
      const fixture = await (await fetch('/fixture.json')).json();
      return w.runVerifiers(w.MerkleCore, fixture);
    })) as R;
    return { result, errors };
  } finally {
    await instance.close();
    await new Promise((resolve) => server.close(resolve));
  }
}
