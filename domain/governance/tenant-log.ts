/**
 * Which log a tenant's admissions go to now: its dedicated log while it is a live L4 tenant (named by
 * the tier change that made it L4: cli/tenant-tier.ts), else its mode's log: the test log for a
 * test-mode tenant, the shared log for a live one. Leaves admitted before a tier change stay in the log
 * they went to; each leaf's log is in its admission event. The tenant aggregate and the tenants read
 * model both answer from here, so the command side and GET /account never disagree.
 */
import { SHARED_LOG_NAME, TEST_LOG_NAME } from '../log';

export interface TenantOfLog {
  mode: 'live' | 'test';
  /** The `log` of its latest tier change: its dedicated log while L4; absent otherwise. */
  log?: string | undefined;
}

export function tenantLogOf(tenant: TenantOfLog): string {
  return tenant.log ?? (tenant.mode === 'test' ? TEST_LOG_NAME : SHARED_LOG_NAME);
}
