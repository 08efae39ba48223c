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
});
