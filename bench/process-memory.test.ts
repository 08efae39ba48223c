import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { gaugeValue, parseProcStatus, processMemory } from './process-memory';

const STATUS = `Name:\tnode
VmPeak:\t 1200000 kB
VmHWM:\t  300000 kB
VmRSS:\t  262144 kB
RssAnon:\t  204800 kB
RssFile:\t   57344 kB
Threads:\t11
`;

describe('parseProcStatus', () => {
  it('given a /proc/<pid>/status, then it reads VmRSS and RssAnon in bytes', () => {
    expect(parseProcStatus(STATUS)).toEqual({ rss: 256 * 2 ** 20, anon: 200 * 2 ** 20 });
  });

  it('given a status without RssAnon (old kernels), then anon is NaN', () => {
    expect(parseProcStatus('VmRSS:\t 1024 kB\n')).toEqual({ rss: 1024 * 1024, anon: Number.NaN });
  });

  it('given a status without VmRSS (a kernel thread), then there is no reading', () => {
    expect(parseProcStatus('Name:\tkthreadd\n')).toBeNull();
  });
});

describe('gaugeValue', () => {
  it('given a metrics page with a prefixed gauge, then it reads it whatever the prefix, and NaN when absent', () => {
    const page = '# TYPE gov_nodejs_heap_size_used_bytes gauge\ngov_nodejs_heap_size_used_bytes 1.5e7\n';
    expect(gaugeValue(page, 'nodejs_heap_size_used_bytes')).toBe(15_000_000);
    expect(gaugeValue(page, 'process_resident_memory_bytes')).toBeNaN();
  });
});

describe('processMemory', () => {
  it('given this very process, then RSS and its anonymous part come from /proc and the heap from the metrics page', async () => {
    const server = http.createServer((_req, res) => res.end('gov_nodejs_heap_size_used_bytes 42\n'));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1/metrics`;
    try {
      const memory = await processMemory(process.pid, url);
      expect(memory.heapUsed).toBe(42);
      expect(memory.rss).toBeGreaterThan(memory.anon);
      expect(memory.anon).toBeGreaterThan(10 * 2 ** 20);
    } finally {
      await new Promise<void>((resolve) => server.close(() => resolve()));
    }
  });

  it('given a process that does not exist, then it asks the server for process_resident_memory_bytes', async () => {
    const server = http.createServer((_req, res) => {
      res.end(
        '# HELP gov_process_resident_memory_bytes Resident memory size in bytes.\n' +
          'gov_process_resident_memory_bytes 123456789\ngov_nodejs_heap_size_used_bytes 4567\n',
      );
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1/metrics`;
    try {
      expect(await processMemory(2 ** 30, url)).toEqual({ rss: 123456789, anon: Number.NaN, heapUsed: 4567 });
    } finally {
      await new Promise<void>((resolve) => server.close(() => resolve()));
    }
  });
});

describe('ownPeakRss', () => {
  it("given a child process that allocates little, then its peak is its own, not its parent's larger one", async () => {
    const { execFile } = await import('node:child_process');
    // The parent's high-water mark first goes well above what the child will use.
    const ballast = Buffer.alloc(300 * 1024 * 1024, 1);
    const code = `require(${JSON.stringify(require.resolve('tsx/cjs'))});
      const { ownPeakRss } = require(${JSON.stringify(require.resolve('./process-memory'))});
      console.log(JSON.stringify({ peak: ownPeakRss(), maxRSS: process.resourceUsage().maxRSS * 1024 }));`;
    const stdout = await new Promise<string>((resolve, reject) =>
      execFile(process.execPath, ['-e', code], (error, out) => (error ? reject(error) : resolve(out))),
    );
    const answer = JSON.parse(stdout) as { peak: number; maxRSS: number };
    expect(ballast.length).toBeGreaterThan(0);
    expect(answer.peak).toBeGreaterThan(0);
    expect(answer.peak).toBeLessThan(200 * 1024 * 1024);
  });
});
