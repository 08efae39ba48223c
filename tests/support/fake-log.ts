/**
 * A stand-in transparency log for witness tests: trees built from labelled entries, checkpoints
 * signed with a log key the test generates, and an HTTP server answering the three routes a witness
 * uses (`checkpoint`, `consistency`, `witness-signatures`) from whatever tree the test makes it serve,
 * an honest one or a fork. It records every request so a test can say what the witness did not do.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import {
  generateKeyPair,
  loadSignerKey,
  loadVerifierKey,
  type NoteSigner,
  signCheckpoint,
  TileLog,
  toHex,
  type VerifierKey,
} from '../../merkle-core';

/** One log's key pair; its name is the origin. */
export class FakeLogKey {
  readonly signer: NoteSigner;
  readonly verifier: VerifierKey;

  constructor(readonly origin: string) {
    const pair = generateKeyPair(origin);
    this.signer = loadSignerKey(pair.signerKey);
    this.verifier = loadVerifierKey(pair.verifierKey);
  }
}

/** A tree of `count` entries `entry 0…`, with entries replaced by `rewrite` (a fork when non-empty). */
export async function fakeTree(count: number, rewrite: Record<number, string> = {}): Promise<TileLog> {
  const tree = new TileLog();
  const entries = Array.from({ length: count }, (_, i) => rewrite[i] ?? `entry ${i}`);
  await tree.appendLeaves(entries.map((e) => new TextEncoder().encode(e)));
  return tree;
}

/** The checkpoint note of the first `size` leaves of `tree`, signed by `key`. */
export function checkpointOf(tree: TileLog, size: number, key: FakeLogKey): string {
  return signCheckpoint({ origin: key.origin, size, rootHash: tree.root(size), extensions: [] }, key.signer);
}

export interface RecordedRequest {
  method: string;
  url: string;
  body: string;
}

/** What the fake log serves: a tree at a size, and the note (maybe tampered) of its checkpoint. */
export interface FakeLogView {
  tree: TileLog;
  size: number;
  note: string;
}

export class FakeLogServer {
  readonly requests: RecordedRequest[] = [];
  view: FakeLogView;

  private constructor(
    private readonly server: http.Server,
    readonly url: string,
    view: FakeLogView,
  ) {
    this.view = view;
  }

  /** Serves `view` at `http://127.0.0.1:<port>/gov/v1/log`. */
  static async start(view: FakeLogView): Promise<FakeLogServer> {
    let self: FakeLogServer | undefined;
    const server = http.createServer((req, res) => {
      let body = '';
      req.setEncoding('utf8');
      req.on('data', (chunk: string) => {
        body += chunk;
      });
      req.on('end', () => self!.answer(req, body, res));
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as AddressInfo;
    self = new FakeLogServer(server, `http://127.0.0.1:${port}/gov/v1/log`, view);
    return self;
  }

  /** The requests to one route (`checkpoint`, `consistency`, `witness-signatures`). */
  requestsTo(route: string): RecordedRequest[] {
    return this.requests.filter((r) => new URL(r.url, 'http://x').pathname === `/gov/v1/log/${route}`);
  }

  close(): Promise<void> {
    this.server.closeAllConnections();
    return new Promise((resolve) => this.server.close(() => resolve()));
  }

  private answer(req: http.IncomingMessage, body: string, res: http.ServerResponse): void {
    this.requests.push({ method: req.method ?? '', url: req.url ?? '', body });
    const url = new URL(req.url ?? '/', 'http://x');
    const { tree, size, note } = this.view;
    const json = (status: number, value: unknown) => {
      res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(value));
    };
    if (req.method === 'GET' && url.pathname === '/gov/v1/log/checkpoint') {
      res.writeHead(200, { 'content-type': 'text/plain; charset=utf-8' }).end(note);
      return;
    }
    if (req.method === 'GET' && url.pathname === '/gov/v1/log/consistency') {
      const from = Number(url.searchParams.get('from'));
      const to = Number(url.searchParams.get('to'));
      if (!(from >= 1 && from <= to && to <= size)) {
        json(400, { error: 'INVALID_REQUEST', message: `from and to must satisfy 1 ≤ from ≤ to ≤ ${size}` });
        return;
      }
      json(200, {
        from,
        to,
        root_from: toHex(tree.root(from)),
        root_to: toHex(tree.root(to)),
        proof: tree.consistencyProof(from, to).map(toHex),
      });
      return;
    }
    if (req.method === 'POST' && url.pathname === '/gov/v1/log/witness-signatures') {
      const submitted = JSON.parse(body) as { tree_size: number; cosignature: string };
      json(200, {
        tree_size: submitted.tree_size,
        witness_key: 'recorded-by-the-fake-log',
        timestamp: 0,
        cosignature: submitted.cosignature,
        sth: { tree_size: submitted.tree_size, witness_signatures: [] },
      });
      return;
    }
    json(404, { error: 'NOT_FOUND', message: `no route for ${req.method} ${url.pathname}` });
  }
}
