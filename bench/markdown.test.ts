import { benchmarksMarkdown } from './markdown';

describe('BENCHMARKS.md', () => {
  it('given rows with targets and peers, then it names the command, the machine and every figure', () => {
    const text = benchmarksMarkdown({
      date: '2026-11-21T04:40:00.000Z',
      command: 'npm run bench -- merkle',
      machine: {
        cpus: 2,
        cpu: 'Test CPU',
        memory_gib: 23,
        node: 'v20.20.2',
        sha256_per_second: { start: 610_000, end: 650_000 },
      },
      rows: [
        {
          suite: 'merkle-core',
          metric: 'append | build',
          value: 1234.5,
          unit: 'leaves/s',
          target: '>= 1000',
          met: true,
          peer: { name: 'merkletreejs', value: 100 },
          ratio: 12.345,
          notes: 'one note',
        },
        { suite: 'governance', metric: 'admissions', value: 655, unit: '/s', target: '>= 3000', met: false },
      ],
    });
    expect(text).toContain('Written by `npm run bench -- merkle` on 2026-11-21');
    expect(text).toContain('2 × Test CPU, 23 GiB, Node v20.20.2');
    expect(text).toContain(
      "Machine speed: 0.61 M/s at the start, 0.65 M/s at the end (0.48× the targets' machine)",
    );
    expect(text).toContain('Targets met: 1 of 2.');
    expect(text).toContain(
      '| merkle-core | append \\| build | 1,234.5 | leaves/s | >= 1000 | yes | merkletreejs: 100 | 12.35x |',
    );
    expect(text).toContain('| governance | admissions | 655 | /s | >= 3000 | NO |  |  |');
    expect(text).toContain('- merkle-core, append | build: one note');
  });
});
