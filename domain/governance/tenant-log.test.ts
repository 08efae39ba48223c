import { tenantLogOf } from './tenant-log';

const ID = `ten_${'0123456789abcdef01234567'}`;

describe('the log a tenant admits to', () => {
  it.each([
    ['live', 'L1', 'shared'],
    ['live', 'L2', 'shared'],
    ['live', 'L2+', 'shared'],
    ['live', 'L4', 'dedicated-0123456789abcdef01234567'],
    ['test', 'L1', 'test'],
    ['test', 'L4', 'test'],
  ] as const)('given a %s tenant on %s, then its log is %s', (mode, tier, log) => {
    expect(tenantLogOf({ tenant_id: ID, mode, tier })).toBe(log);
  });
});
