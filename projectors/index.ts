import type { Projection } from './engine/projection';
import { governanceProjection } from './governance/governance-projection';
import { tenantsProjection } from './governance/tenants';
import { treeHeadsProjection } from './log/tree-heads';
import { platformAccountsProjection } from './platform/accounts';
import { agentsProjection } from './platform/agents';
import { quotaProjection } from './platform/quota';
import { vaultProjection } from './platform/vault';

/** Every read model the server keeps. */
export const projections: readonly Projection[] = [
  tenantsProjection,
  governanceProjection,
  treeHeadsProjection,
  agentsProjection,
  platformAccountsProjection,
  vaultProjection,
  quotaProjection,
];
