/**
 * Which log a tenant's admissions go to now: a test-mode tenant's to the test log, an L4 tenant's to
 * its own dedicated log (made when it became L4), every other's to the shared log. Leaves admitted
 * before a tier change stay in the log they went to; each leaf's log is in its admission event.
 */
import { dedicatedLogOf, SHARED_LOG_NAME, TEST_LOG_NAME } from '../log';

export interface TenantOfLog {
  tenant_id: string;
  mode: 'live' | 'test';
  tier: string;
}

export function tenantLogOf(tenant: TenantOfLog): string {
  if (tenant.mode === 'test') return TEST_LOG_NAME;
  return tenant.tier === 'L4' ? dedicatedLogOf(tenant.tenant_id) : SHARED_LOG_NAME;
}
