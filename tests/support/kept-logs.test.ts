import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { keepLogs } from './kept-logs';

describe('keepLogs', () => {
  it("given a run's folder, when its logs are kept, then every log is copied where it was and no data comes along", () => {
    const run = fs.mkdtempSync(path.join(os.tmpdir(), 'kept-logs-run-'));
    const write = (relative: string, text: string) => {
      fs.mkdirSync(path.dirname(path.join(run, relative)), { recursive: true });
      fs.writeFileSync(path.join(run, relative), text);
    };
    write('logs/command-api-a.log', 'role output');
    write('servers/ferretdb/server.log', 'ferretdb output');
    write('servers/kafka/server.log', 'kafka output');
    write('servers/kafka/data/gov.events-0/00000000000000000000.log', 'a partition segment');
    write('data/events.db', 'events');

    const kept = keepLogs(run, 'kept-logs-test');
    try {
      const files = (folder: string): string[] =>
        fs
          .readdirSync(folder, { withFileTypes: true })
          .flatMap((entry) =>
            entry.isDirectory()
              ? files(path.join(folder, entry.name)).map((file) => path.join(entry.name, file))
              : [entry.name],
          );
      expect(files(kept).sort()).toEqual([
        path.join('logs', 'command-api-a.log'),
        path.join('servers', 'ferretdb', 'server.log'),
        path.join('servers', 'kafka', 'server.log'),
      ]);
      expect(fs.readFileSync(path.join(kept, 'logs', 'command-api-a.log'), 'utf8')).toBe('role output');
    } finally {
      fs.rmSync(run, { recursive: true, force: true });
      fs.rmSync(kept, { recursive: true, force: true });
    }
  });
});
