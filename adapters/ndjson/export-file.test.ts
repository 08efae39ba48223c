import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import type { RecordedEvent } from '../../ports/event-store';
import { tempDir } from '../../tests/support/temp-dir';
import { type ExportHeader, ExportIntegrityError, readExportFile, readExportStream } from './export-file';

function event(position: number, overrides: Partial<RecordedEvent> = {}): RecordedEvent {
  return {
    id: `00000000-0000-4000-8000-${String(position).padStart(12, '0')}`,
    type: 'EvidenceAdmitted',
    stream: `tenant-${position % 3}`,
    revision: Math.floor((position - 1) / 3),
    position,
    recorded_at: new Date(Date.UTC(2025, 0, 1, 0, 0, position)).toISOString(),
    tenant_id: `t-${position % 3}`,
    correlation_id: `c-${position}`,
    causation_id: position === 1 ? null : `c-${position - 1}`,
    schema_version: 1,
    data: { n: position, text: 'é ✓', nested: { list: [1, 2.5, null, true] } },
    ...overrides,
  };
}

const events = [1, 2, 3, 4, 5].map((p) => event(p));

/** An export built by hand from the format's description (independent of the writer). */
function exportText(
  list: readonly unknown[],
  options: { head?: number; trailer?: (sha: string, count: number, last: number) => unknown } = {},
): string {
  const last = (list.at(-1) as RecordedEvent | undefined)?.position ?? 0;
  const header = {
    format: 'gov-events',
    version: 1,
    exported_at: '2025-06-01T12:00:00.000Z',
    source: 'sqlite:/data/events.db',
    head_position: options.head ?? last,
  };
  const body = [header, ...list].map((value) => `${JSON.stringify(value)}\n`).join('');
  const sha = createHash('sha256').update(body).digest('hex');
  const trailer = options.trailer?.(sha, list.length, last) ?? {
    trailer: true,
    events: list.length,
    last_position: last,
    sha256: sha,
  };
  return `${body}${JSON.stringify(trailer)}\n`;
}

async function readAll(text: string | Buffer) {
  const got: RecordedEvent[] = [];
  let header: ExportHeader | null = null;
  let trailerSeen = false;
  const source = readExportStream(
    (async function* () {
      // Small chunks: lines cross chunk boundaries.
      const bytes = Buffer.from(text);
      for (let i = 0; i < bytes.length; i += 7) yield bytes.subarray(i, i + 7);
    })(),
    {
      onHeader: (h) => {
        header = h;
      },
      onTrailer: () => {
        trailerSeen = true;
      },
    },
  );
  for await (const e of source) got.push(e);
  return { events: got, header: header as ExportHeader | null, trailerSeen };
}

async function failure(text: string | Buffer): Promise<ExportIntegrityError> {
  try {
    await readAll(text);
  } catch (error) {
    if (error instanceof ExportIntegrityError) return error;
    throw error;
  }
  throw new Error('the export was accepted');
}

describe('reading a gov-events export', () => {
  describe('an intact file', () => {
    it('yields every event exactly, in order, after announcing the header and before the trailer', async () => {
      const result = await readAll(exportText(events));
      expect(result.events).toEqual(events);
      expect(result.header).toEqual({
        format: 'gov-events',
        version: 1,
        exported_at: '2025-06-01T12:00:00.000Z',
        source: 'sqlite:/data/events.db',
        head_position: 5,
      });
      expect(result.trailerSeen).toBe(true);
    });

    it('accepts an empty stream (header and trailer only) and a trailer without a final newline', async () => {
      expect((await readAll(exportText([]))).events).toEqual([]);
      expect((await readAll(exportText(events).trimEnd())).events).toHaveLength(5);
    });

    it('accepts gaps in positions and a head beyond the last event', async () => {
      const gapped = [event(2), event(9), event(40)];
      expect((await readAll(exportText(gapped, { head: 41 }))).events).toEqual(gapped);
    });

    it('reads a file from disk (readExportFile), and can be iterated twice', async () => {
      const temp = tempDir('gov-ndjson');
      try {
        const file = path.join(temp.dir, 'events.ndjson');
        fs.writeFileSync(file, exportText(events));
        for (let round = 0; round < 2; round++) {
          const got: RecordedEvent[] = [];
          for await (const e of readExportFile(file)) got.push(e);
          expect(got).toEqual(events);
        }
      } finally {
        temp.remove();
      }
    });

    it('given a missing file, then the file system error (not an integrity error)', async () => {
      const iterate = async () => {
        for await (const _ of readExportFile('/nonexistent/gov/events.ndjson')) {
          // nothing
        }
      };
      await expect(iterate()).rejects.toMatchObject({ code: 'ENOENT' });
    });
  });

  describe('a damaged file is refused with the line at fault', () => {
    it('given an empty file, then line 1: no header', async () => {
      const error = await failure('');
      expect(error.line).toBe(1);
      expect(error.message).toMatch(/empty/);
    });

    it('given another format or version, then line 1 says so', async () => {
      const other = exportText(events).replace('"gov-events"', '"other"');
      expect(await failure(other)).toMatchObject({
        line: 1,
        message: expect.stringMatching(/not a gov-events export/),
      });
      const newer = exportText(events).replace('"version":1', '"version":2');
      expect((await failure(newer)).message).toMatch(/version 2 is not supported/);
    });

    it('given a line that is not JSON, then that line', async () => {
      const lines = exportText(events).split('\n');
      lines[3] = '{"id": broken';
      expect(await failure(lines.join('\n'))).toMatchObject({
        line: 4,
        message: expect.stringMatching(/JSON/),
      });
    });

    it('given an event missing a member, with a wrong type, or with an unknown member, then that line names it', async () => {
      const { data: _data, ...noData } = event(2);
      expect(await failure(exportText([event(1), noData]))).toMatchObject({
        line: 3,
        message: expect.stringMatching(/'data'/),
      });
      const badRevision = await failure(exportText([event(1, { revision: -1 })]));
      expect(badRevision).toMatchObject({ line: 2, message: expect.stringMatching(/'revision'/) });
      const extra = await failure(exportText([{ ...event(1), extra: 1 }]));
      expect(extra.message).toMatch(/unexpected member 'extra'/);
      const badTime = await failure(exportText([event(1, { recorded_at: 'yesterday' })]));
      expect(badTime.message).toMatch(/'recorded_at'/);
    });

    it('given positions out of order or repeated, then the line of the offending event', async () => {
      expect(await failure(exportText([event(1), event(3), event(2)], { head: 3 }))).toMatchObject({
        line: 4,
        message: expect.stringMatching(/strictly increasing/),
      });
      expect((await failure(exportText([event(1), event(1)]))).line).toBe(3);
    });

    it('given an event beyond the header head position, then that line', async () => {
      expect(await failure(exportText(events, { head: 4 }))).toMatchObject({
        line: 6,
        message: expect.stringMatching(/beyond the header's head_position 4/),
      });
    });

    it('given a file cut at a line boundary (no trailer), then the line after the last as truncated', async () => {
      const text = exportText(events);
      const cut = text.slice(0, text.lastIndexOf('{"trailer"'));
      expect(await failure(cut)).toMatchObject({ line: 7, message: expect.stringMatching(/truncated/) });
    });

    it('given a file cut in the middle of an event line, then that line as truncated', async () => {
      const text = exportText(events);
      const cut = text.slice(0, text.indexOf('"position":4') + 5);
      expect(await failure(cut)).toMatchObject({ line: 5, message: expect.stringMatching(/truncated/) });
      const header = await failure(text.slice(0, 20));
      expect(header).toMatchObject({ line: 1, message: expect.stringMatching(/truncated/) });
    });

    it('given a flipped byte in an event, then a checksum mismatch at the trailer line, after the events were yielded', async () => {
      const text = exportText(events).replace('"n":3', '"n":4');
      const seen: RecordedEvent[] = [];
      let caught: unknown;
      try {
        for await (const e of readExportStream([Buffer.from(text)])) seen.push(e);
      } catch (error) {
        caught = error;
      }
      expect(caught).toBeInstanceOf(ExportIntegrityError);
      expect(caught).toMatchObject({ line: 7, message: expect.stringMatching(/checksum mismatch/) });
      // Streamed: everything arrived before the checksum could be known (hence "unverified until the end").
      expect(seen).toHaveLength(5);
    });

    it('given a changed header, then a checksum mismatch (the header is covered too)', async () => {
      const text = exportText(events).replace('sqlite:/data/events.db', 'sqlite:/data/other.db');
      expect((await failure(text)).message).toMatch(/checksum mismatch/);
    });

    it('given a trailer with the wrong count or last position, then the trailer line says which', async () => {
      const count = exportText(events, {
        trailer: (sha, n, last) => ({ trailer: true, events: n + 1, last_position: last, sha256: sha }),
      });
      expect(await failure(count)).toMatchObject({
        line: 7,
        message: expect.stringMatching(/counts 6 events but the file holds 5/),
      });
      const last = exportText(events, {
        trailer: (sha, n) => ({ trailer: true, events: n, last_position: 4, sha256: sha }),
      });
      expect((await failure(last)).message).toMatch(/last_position is 4/);
    });

    it('given anything after the trailer, then that line', async () => {
      expect(await failure(`${exportText(events)}\n`)).toMatchObject({
        line: 8,
        message: expect.stringMatching(/after the trailer/),
      });
      expect((await failure(`${exportText(events)}${JSON.stringify(event(6))}\n`)).line).toBe(8);
    });

    it('given CRLF line ends (a file converted by an editor), then a checksum mismatch', async () => {
      expect((await failure(exportText(events).replaceAll('\n', '\r\n'))).message).toMatch(
        /checksum mismatch/,
      );
    });
  });
});
