import type { AuditReport } from './report';
import { formatAuditSummary } from './summary';

const clean: AuditReport = {
  checks: 'all',
  log: null,
  events: 12_345,
  leaves: 10_000,
  tree_heads: 57,
  tree_size: 10_000,
  root_hash: 'ab'.repeat(32),
  logs: [
    {
      log: 'shared',
      kind: 'shared',
      origin: 'gov.example/log',
      verifier_key: null,
      created_at: null,
      leaves: 10_000,
      tree_heads: 57,
      tree_size: 10_000,
      root_hash: 'ab'.repeat(32),
      signatures: 0,
    },
  ],
  discrepancies: [],
  notices: [],
  signatures: 48_057,
  seconds: 2.04,
  leaves_per_second: 4901.9,
};

describe('the human summary of an audit', () => {
  it('given a clean report, when formatted, then it gives the counts, the root and says it is clean', () => {
    expect(formatAuditSummary(clean, '/data/events.db')).toBe(
      [
        'audit of /data/events.db',
        '  12,345 events, 10,000 leaves, 57 tree heads in 2.0 s (4,902 leaves/s)',
        `  tree size 10,000, root ${'ab'.repeat(32)}`,
        '',
        'clean: every event, leaf, root and signed tree head checks out.',
      ].join('\n'),
    );
  });

  it('given a clean audit of the log structure alone, when formatted, then it says what was checked and what was not', () => {
    const text = formatAuditSummary({ ...clean, checks: 'log' }, '/data/events.db');
    expect(text).toMatch(/^audit of \/data\/events\.db \(the log structure alone: --checks log\)$/m);
    expect(text).toMatch(
      /clean: every leaf record, leaf hash, root and signed tree head checks out \(events, bundles, certificates, envelopes and links were not checked\)\.$/,
    );
  });

  it('given discrepancies and notices, when formatted, then each discrepancy is listed with where and why, then the counts by check and the notices', () => {
    const text = formatAuditSummary(
      {
        ...clean,
        root_hash: null,
        discrepancies: [
          {
            position: 17,
            event_id: 'e-17',
            event_type: 'EvidenceAdmitted',
            check: 'envelope-signature',
            message: 'the authority signature does not verify',
          },
          {
            position: 40,
            event_id: 'e-40',
            event_type: 'TreeHeadSigned',
            tree_size: 12,
            check: 'root-mismatch',
            message: 'root_hash is not the recomputed root',
          },
          {
            position: null,
            event_id: null,
            event_type: null,
            check: 'source-integrity',
            message: 'checksum mismatch',
          },
        ],
        notices: ['2 admission event(s) are not integrated'],
      },
      'export.ndjson',
    );
    expect(text.split('\n').slice(2)).toEqual([
      '  tree size 10,000, root (cannot be recomputed)',
      '',
      '3 discrepancies:',
      '  [envelope-signature] position 17, EvidenceAdmitted, event e-17',
      '      the authority signature does not verify',
      '  [root-mismatch] position 40, TreeHeadSigned, event e-40, tree size 12',
      '      root_hash is not the recomputed root',
      '  [source-integrity] no position',
      '      checksum mismatch',
      '',
      'by check: envelope-signature 1, root-mismatch 1, source-integrity 1',
      '',
      'notices:',
      '  2 admission event(s) are not integrated',
    ]);
  });

  it('given several logs, when formatted, then each log has its line, and a discrepancy names its log', () => {
    const shared = clean.logs[0]!;
    const test = { ...shared, log: 'test', kind: 'test' as const, leaves: 46, tree_heads: 8, tree_size: 46 };
    const text = formatAuditSummary(
      {
        ...clean,
        log: null,
        logs: [shared, { ...test, root_hash: null }],
        discrepancies: [
          {
            position: 41,
            event_id: 'e-41',
            event_type: 'TreeHeadSigned',
            log: 'test',
            tree_size: 46,
            check: 'sth-signature',
            message: 'the checkpoint does not verify under the key of log test',
          },
        ],
      },
      '/data/events.db',
    );
    expect(text.split('\n').slice(2, 8)).toEqual([
      '  2 logs:',
      `    shared  10,000 leaves, 57 tree heads, tree size 10,000, root ${'ab'.repeat(32)}`,
      '    test    46 leaves, 8 tree heads, tree size 46, root (cannot be recomputed)',
      '',
      '1 discrepancy:',
      '  [sth-signature] position 41, TreeHeadSigned, event e-41, log test, tree size 46',
    ]);
    expect(formatAuditSummary({ ...clean, log: 'test', logs: [test] }, 'x').split('\n')[0]).toBe(
      'audit of x, log test alone',
    );
  });
});
