import { ExportIntegrityError } from './format';
import { type Line, splitLines } from './lines';

async function* chunksOf(...parts: string[]): AsyncGenerator<Buffer> {
  for (const part of parts) yield Buffer.from(part);
}

async function collect(lines: AsyncIterable<Line>) {
  const out: { number: number; text: string; terminated: boolean }[] = [];
  for await (const line of lines)
    out.push({ number: line.number, text: line.bytes.toString('utf8'), terminated: line.terminated });
  return out;
}

describe('splitLines', () => {
  it('given lines split anywhere across chunks, when split, then each line comes whole and numbered from 1', async () => {
    const lines = await collect(splitLines(chunksOf('ab', 'c\nde', 'f\n\ng', 'hi\n')));
    expect(lines).toEqual([
      { number: 1, text: 'abc', terminated: true },
      { number: 2, text: 'def', terminated: true },
      { number: 3, text: '', terminated: true },
      { number: 4, text: 'ghi', terminated: true },
    ]);
  });

  it('given a multi-byte character cut between chunks, then the line decodes intact', async () => {
    const bytes = Buffer.from('é€\n');
    const lines = await collect(
      splitLines(
        (async function* () {
          yield bytes.subarray(0, 1);
          yield bytes.subarray(1, 3);
          yield bytes.subarray(3);
        })(),
      ),
    );
    expect(lines).toEqual([{ number: 1, text: 'é€', terminated: true }]);
  });

  it('given a stream ending without a newline, then the last line is marked unterminated', async () => {
    const lines = await collect(splitLines(chunksOf('one\ntw', 'o')));
    expect(lines.at(-1)).toEqual({ number: 2, text: 'two', terminated: false });
  });

  it('given CRLF line ends, then the \\r stays part of the line (the checksum covers exact bytes)', async () => {
    const lines = await collect(splitLines(chunksOf('a\r\nb\r\n')));
    expect(lines.map((l) => l.text)).toEqual(['a\r', 'b\r']);
  });

  it('given a line longer than the limit, then ExportIntegrityError names that line before buffering it whole', async () => {
    const run = collect(splitLines(chunksOf('ok\n', 'x'.repeat(6), 'x'.repeat(6), '\n'), 10));
    await expect(run).rejects.toThrow(ExportIntegrityError);
    await expect(collect(splitLines(chunksOf('ok\n', 'x'.repeat(11)), 10))).rejects.toMatchObject({
      line: 2,
    });
  });

  it('given an empty stream, then no line', async () => {
    expect(await collect(splitLines(chunksOf()))).toEqual([]);
  });
});
