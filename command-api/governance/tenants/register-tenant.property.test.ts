/** Properties of `decideRegisterTenant` for every body the route can pass it. */
import fc from 'fast-check';
import { type RegisterTenantBody, validateCommand } from '../../../event-schemas';
import { hostileBody, validCommandBody } from '../../../event-schemas/schema-arbitrary';
import { FIXED_KEY, PROPERTY_OPTIONS, schemaProblems, tenantIdArb } from '../property-support';
import { hashApiKey, parseApiKey } from './api-keys';
import { decideRegisterTenant } from './register-tenant';
import { tenantStream } from './tenant-state';

/** Bodies the schema accepts, drawn directly and from near-misses that stayed valid. */
const bodyArb = fc.oneof(
  validCommandBody('register-tenant'),
  hostileBody('register-tenant').filter((body) => validateCommand('register-tenant', body).ok),
) as fc.Arbitrary<RegisterTenantBody>;
const instantArb = fc.date({
  min: new Date('2000-01-01T00:00:00Z'),
  max: new Date('2200-01-01T00:00:00Z'),
  noInvalidDate: true,
});

describe('decideRegisterTenant', () => {
  it('given any valid body, then it decides one valid TenantRegistered for a Trial tenant in its own stream, keeping only the key hash', () => {
    fc.assert(
      fc.property(bodyArb, instantArb, (body, now) => {
        const decision = decideRegisterTenant(body, now);
        const { data } = decision.event;
        expect(schemaProblems([decision.event as never])).toEqual([]);
        expect(decision.stream).toBe(tenantStream(data.tenant_id));
        expect(data).toMatchObject({
          tier: 'L1',
          mode: body.mode ?? 'live',
          email: body.email,
          registered_at: now.toISOString(),
        });
        expect(parseApiKey(decision.apiKey)).toEqual({ mode: data.mode, keyId: data.key_id });
        expect(data.key_hash).toBe(hashApiKey(decision.apiKey));
        expect(JSON.stringify(data)).not.toContain(decision.apiKey);
      }),
      { ...PROPERTY_OPTIONS, numRuns: 200 },
    );
  });

  it('given the same body, instant, ids and key, then the decision is the same', () => {
    fc.assert(
      fc.property(bodyArb, instantArb, tenantIdArb, (body, now, tenantId) => {
        const ids = { tenantId, nodeId: `node_${'1'.repeat(24)}` };
        expect(decideRegisterTenant(body, now, ids, FIXED_KEY)).toEqual(
          decideRegisterTenant(body, now, ids, FIXED_KEY),
        );
      }),
      { ...PROPERTY_OPTIONS, numRuns: 100 },
    );
  });
});
