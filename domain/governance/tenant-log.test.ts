import { tenantLogOf } from './tenant-log';

const DEDICATED = 'dedicated-0123456789abcdef01234567';

describe('the log a tenant admits to', () => {
  it.each([
    ['live', undefined, 'shared'],
    ['test', undefined, 'test'],
    ['live', DEDICATED, DEDICATED],
  ] as const)(
    'given a %s tenant whose latest tier change names log %s, then its log is %s',
    (mode, log, expected) => {
      expect(tenantLogOf({ mode, log })).toBe(expected);
    },
  );
});
