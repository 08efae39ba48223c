import { governanceProjection } from './governance';
import type { Projection } from './projection';
import { tenantsProjection } from './tenants';
import { treeHeadsProjection } from './tree-heads';

/** Every read model the server keeps. */
export const projections: readonly Projection[] = [
  tenantsProjection,
  governanceProjection,
  treeHeadsProjection,
];
