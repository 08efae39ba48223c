/**
 * The checks of one TenantPolicyChanged on its own: it is the tenant's, and its policy_hash is the
 * hash of the policy it carries. Its place in the tenant's chain of policies (version, previous hash)
 * and the policy each later admission names are link checks (link-index.ts). Pure.
 */
import { policyHash } from '../domain/governance/policy';
import type { TenantPolicyChanged } from '../event-schemas';
import { fromHex } from '../merkle-core';
import type { LinkFacts } from './event-facts';
import type { Finding } from './report';

export function checkTenantPolicyChanged(
  eventTenant: string,
  data: TenantPolicyChanged,
): { findings: Finding[]; link: Extract<LinkFacts, { kind: 'policy' }> } {
  const findings: Finding[] = [];
  if (eventTenant !== data.tenant_id)
    findings.push({
      check: 'tenant-mismatch',
      message: `the event is tenant ${eventTenant}'s but its data names tenant ${data.tenant_id}`,
    });
  const hash = policyHash(data.policy);
  if (data.policy_hash !== hash)
    findings.push({
      check: 'policy-hash-mismatch',
      message: `policy_hash ${data.policy_hash} is not the hash of the policy the event carries (${hash}): the policy or its hash was altered`,
    });
  return {
    findings,
    link: {
      kind: 'policy',
      tenant: data.tenant_id,
      version: data.version,
      hash: fromHex(hash),
      previousHash: fromHex(data.previous_policy_hash),
    },
  };
}
