import type { Projection } from './projection';
import { tenantsProjection } from './tenants';

/** Every read model the server keeps. */
export const projections: readonly Projection[] = [tenantsProjection];
