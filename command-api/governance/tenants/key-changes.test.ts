import path from 'node:path';
import pino from 'pino';
import { SqliteEventStore } from '../../../adapters/sqlite/event-store';
import { type KeyRecord, RecentKeys } from '../../../runtime/http/recent-keys';
import { until } from '../../../tests/support/service-processes';
import { tempDir } from '../../../tests/support/temp-dir';
import { followKeyChanges } from './key-changes';

const record = (tenantId: string): KeyRecord => ({
  key: { tenant_id: tenantId, key_hash: 'ab'.repeat(32), mode: 'live', expires_at: null },
  tenant: { tenant_id: tenantId, tier: 'L1' },
});

describe('followKeyChanges', () => {
  it('given lookups remembered, when a tenant is rotated or changes tier in the store, then its lookups are forgotten and no other', async () => {
    const { dir, remove } = tempDir('gov-key-changes');
    const store = new SqliteEventStore({ file: path.join(dir, 'events.db'), pollIntervalMs: 5 });
    const recent = new RecentKeys();
    const now = new Date();
    const append = (type: string, tenantId: string) =>
      store.append(`tenant-${tenantId}`, [{ type, data: {}, tenant_id: tenantId, correlation_id: 'c' }]);
    await append('TenantTierChanged', 'ten_old'); // before the feed starts: nothing remembered then
    const feed = followKeyChanges(store, recent, pino({ level: 'silent' }));
    try {
      await until(() => recent.following, 'the feed to follow', 5000);
      for (const tenant of ['ten_a', 'ten_b', 'ten_c'])
        recent.remember(`key-${tenant}`, record(tenant), now, 1);
      await append('ApiKeyRotated', 'ten_a');
      await append('EvidenceAdmitted', 'ten_c'); // not a key change
      await append('TenantTierChanged', 'ten_b');
      await until(
        () => recent.get('key-ten_a', now) === undefined && recent.get('key-ten_b', now) === undefined,
        'the changes to be told',
        5000,
      );
      expect(recent.get('key-ten_c', now)).toEqual(record('ten_c'));
    } finally {
      await feed.stop();
      await store.close();
      remove();
    }
  });
});
