/** The witness's HTTP client: the log's URL, what it reads back, and errors a person can act on. */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { checkpointOf, FakeLogKey, FakeLogServer, fakeTree } from '../tests/support/fake-log';
import { HttpLogClient, LogClientError, logBaseUrl } from './log-client';

describe('logBaseUrl', () => {
  it('takes the log URL as admissions name it, and a bare server URL as its /gov/v1/log', () => {
    expect(logBaseUrl('https://gov.example/gov/v1/log')).toBe('https://gov.example/gov/v1/log');
    expect(logBaseUrl('https://gov.example/gov/v1/log/')).toBe('https://gov.example/gov/v1/log');
    expect(logBaseUrl('http://127.0.0.1:8080')).toBe('http://127.0.0.1:8080/gov/v1/log');
    expect(logBaseUrl('https://mirror.example/logs/gov')).toBe('https://mirror.example/logs/gov');
  });

  it('takes a log name with a bare server URL, and checks it against a log URL', () => {
    expect(logBaseUrl('https://gov.example', 'test')).toBe('https://gov.example/gov/v1/logs/test');
    expect(logBaseUrl('https://gov.example/', 'shared')).toBe('https://gov.example/gov/v1/log');
    const dedicated = `dedicated-${'0f'.repeat(12)}`;
    expect(logBaseUrl(`https://gov.example/gov/v1/logs/${dedicated}/`)).toBe(
      `https://gov.example/gov/v1/logs/${dedicated}`,
    );
    expect(logBaseUrl(`https://gov.example/gov/v1/logs/${dedicated}`, dedicated)).toBe(
      `https://gov.example/gov/v1/logs/${dedicated}`,
    );
    expect(() => logBaseUrl('https://gov.example/gov/v1/log', 'test')).toThrow(/is not the URL of log test/);
    expect(() => logBaseUrl('https://gov.example', 'Test')).toThrow(/is not a log name/);
  });

  it('refuses what is not an http(s) URL without query or fragment', () => {
    expect(() => logBaseUrl('gov.example/gov/v1/log')).toThrow(/not a URL/);
    expect(() => logBaseUrl('ftp://gov.example/log')).toThrow(/http or https/);
    expect(() => logBaseUrl('https://gov.example/gov/v1/log?x=1')).toThrow(/query or fragment/);
  });
});

describe('HttpLogClient', () => {
  const key = new FakeLogKey('log.example/client');
  let log: FakeLogServer;

  beforeAll(async () => {
    const tree = await fakeTree(10);
    log = await FakeLogServer.start({ tree, size: 10, note: checkpointOf(tree, 10, key) });
  });
  afterAll(() => log.close());

  it('reads the checkpoint note, a consistency proof and the answer to a cosignature', async () => {
    const client = new HttpLogClient(log.url);
    expect(await client.checkpoint()).toBe(log.view.note);
    expect(await client.consistencyProof(3, 10)).toEqual(log.view.tree.consistencyProof(3, 10));
    const line = '— witness.example AAAA\n';
    expect(await client.submitCosignature(10, line)).toMatchObject({ tree_size: 10, cosignature: line });
    expect(JSON.parse(log.requestsTo('witness-signatures')[0]!.body)).toEqual({
      tree_size: 10,
      cosignature: line,
    });
  });

  it("reports the log's own error message with the status", async () => {
    const client = new HttpLogClient(log.url);
    const failure = client.consistencyProof(3, 99);
    await expect(failure).rejects.toThrow(LogClientError);
    await expect(failure).rejects.toMatchObject({
      status: 400,
      message: expect.stringMatching(/consistency\?from=3&to=99 answered 400: from and to must satisfy/),
    });
  });

  it('says which log could not be reached', async () => {
    const closed = http.createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const { port } = closed.address() as AddressInfo;
    await new Promise((resolve) => closed.close(resolve));
    const client = new HttpLogClient(`http://127.0.0.1:${port}/gov/v1/log`);
    await expect(client.checkpoint()).rejects.toThrow(
      new RegExp(`GET http://127\\.0\\.0\\.1:${port}/gov/v1/log/checkpoint failed`),
    );
  });

  describe('against a log that answers nonsense', () => {
    let server: http.Server;
    let url: string;
    let answer: (res: http.ServerResponse) => void;

    beforeAll(async () => {
      server = http.createServer((_req, res) => answer(res));
      await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
      url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/gov/v1/log`;
    });
    afterAll(async () => {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    });

    it('refuses a proof that is not a list of hashes for the sizes asked', async () => {
      answer = (res) => res.end(JSON.stringify({ from: 3, to: 10, proof: ['zz'] }));
      await expect(new HttpLogClient(url).consistencyProof(3, 10)).rejects.toThrow(
        /did not answer \{from, to, proof/,
      );
      answer = (res) => res.end(JSON.stringify({ from: 2, to: 10, proof: [] }));
      await expect(new HttpLogClient(url).consistencyProof(3, 10)).rejects.toThrow(LogClientError);
    });

    it('stops reading an answer larger than any log answer', async () => {
      answer = (res) => {
        res.write('x'.repeat(700_000));
        res.end('x'.repeat(700_000));
      };
      await expect(new HttpLogClient(url).checkpoint()).rejects.toThrow(/more than 1048576 bytes/);
    });

    it('gives up on a log that does not answer in time', async () => {
      answer = () => {};
      await expect(new HttpLogClient(url, 200).checkpoint()).rejects.toThrow(/checkpoint failed/);
    });
  });
});
