import { headsToAnchor, logAnchorRecord, type SignedHead } from './anchor';

const head = (log: string, size: number): SignedHead => ({
  log,
  origin: `gov.example/${log}`,
  tree_size: size,
  root_hash: String(size % 10).repeat(64),
  checkpoint: `gov.example/${log}\n${size}\nroot\n\n— gov.example/${log} sig\n`,
});
const DEDICATED = 'dedicated-0123456789abcdef01234567';

describe('headsToAnchor: which logs the anchorer admits a checkpoint of', () => {
  const cases: [string, SignedHead[], [string, number][], string[]][] = [
    ['a log never anchored, with leaves', [head('test', 3)], [], ['test:3']],
    ['a log never anchored, empty: nothing to commit to', [head('test', 0)], [], []],
    ['a log grown since its last anchor', [head('test', 5)], [['test', 3]], ['test:5']],
    ['a log at the size of its last anchor (re-signed on a restart)', [head('test', 3)], [['test', 3]], []],
    ['a last anchor larger than the head read (a head read stale)', [head('test', 2)], [['test', 3]], []],
    ['the shared log is never anchored in itself', [head('shared', 9)], [], []],
    [
      'several logs, each on its own',
      [head('shared', 9), head('test', 4), head(DEDICATED, 7)],
      [
        ['test', 4],
        [DEDICATED, 6],
      ],
      [`${DEDICATED}:7`],
    ],
    [
      'another log’s anchor does not count',
      [head('test', 2), head(DEDICATED, 2)],
      [[DEDICATED, 2]],
      ['test:2'],
    ],
  ];
  test.each(cases)('%s', (_name, latest, anchored, expected) => {
    const chosen = headsToAnchor(latest, new Map(anchored));
    expect(chosen.map((h) => `${h.log}:${h.tree_size}`)).toEqual(expected);
  });
});

describe('logAnchorRecord', () => {
  test('commits to the head alone: name, origin, size, root, checkpoint, time', () => {
    const record = logAnchorRecord(head('test', 3), new Date('2026-03-01T10:00:00Z'));
    expect(record).toEqual({
      record_type: 'GOV_LOG_ANCHOR_V1',
      log: 'test',
      origin: 'gov.example/test',
      tree_size: 3,
      root_hash: '3'.repeat(64),
      checkpoint: head('test', 3).checkpoint,
      anchored_at: '2026-03-01T10:00:00.000Z',
    });
  });
});
