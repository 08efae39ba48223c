/**
 * `GET /v1/tiers` and `GET /v1/channels`, generated from the platform's feature catalog
 * (domain/platform/capabilities.ts, which the feature gate reads too), its cost model and the
 * clearinghouse's tier limits: one user's tier is its governance tenant's, so both services' limits
 * of a tier are shown together.
 */
import { TIER_LIMITS } from '../../../domain/governance/tier-limits';
import {
  allowedTiers,
  type FeatureId,
  featureOf,
  type Tier,
  tierCatalog,
} from '../../../domain/platform/capabilities';
import { USD_PER_1000_CREDITS } from '../../../domain/platform/cost-model';

/** The tiers' names, as the clearinghouse's documents call them. */
const TIER_NAMES: Readonly<Record<Tier, string>> = {
  L1: 'Trial',
  L2: 'Pay-as-you-govern',
  'L2+': 'Certified',
  L4: 'Networked',
};

/** How each tier is priced, in words beside the figure. */
const PRICING_BASIS: Readonly<Record<Tier, string>> = {
  L1: 'free: governed actions within the daily allowance',
  L2: 'pay as you govern: credits of the cost model, per 1,000',
  'L2+': 'pay as you govern at a lower rate per 1,000 credits',
  L4: 'by contract (a dedicated deployment and log)',
};

export function tiers() {
  return {
    tiers: tierCatalog().map((entry) => {
      const clearinghouse = TIER_LIMITS[entry.tier];
      return {
        tier: entry.tier,
        name: TIER_NAMES[entry.tier],
        pricing: {
          usd_per_1000_credits: USD_PER_1000_CREDITS[entry.tier],
          basis: PRICING_BASIS[entry.tier],
        },
        limits: entry.limits,
        clearinghouse_limits: {
          requests_per_minute: clearinghouse.requestsPerMinute,
          leaves_per_day: clearinghouse.leavesPerDay,
          trial: clearinghouse.trial && {
            leaf_cap: clearinghouse.trial.leafCap,
            window_hours: clearinghouse.trial.windowHours,
          },
          closed_loop: clearinghouse.closedLoop,
        },
        features: entry.features,
        adds: entry.adds,
      };
    }),
  };
}

/** The input channels, each the feature of the catalog that gates it. */
const CHANNELS: readonly { channel: string; feature: FeatureId; transport: string; endpoint: string }[] = [
  {
    channel: 'chat',
    feature: 'chat',
    transport: 'websocket',
    endpoint: 'WS /v1/agents/{agentId}/chat?ticket={ticket}',
  },
  {
    channel: 'rest',
    feature: 'rest_channel',
    transport: 'https',
    endpoint: 'POST /v1/agents/{agentId}/channel/message',
  },
  {
    channel: 'email',
    feature: 'email_channel',
    transport: "an email provider's signed inbound webhook",
    endpoint: 'POST /v1/webhooks/email',
  },
  {
    channel: 'messaging_app',
    feature: 'messaging_channel',
    transport: "a messaging app's signed webhook",
    endpoint: 'POST /v1/webhooks/msgapp',
  },
];

export function channels() {
  return {
    channels: CHANNELS.map(({ channel, feature, transport, endpoint }) => {
      const entry = featureOf(feature);
      return {
        channel,
        name: entry.name,
        description: entry.description,
        transport,
        endpoint,
        feature,
        status: entry.status,
        available: entry.available,
        required_tier: entry.min_tier,
        tiers: allowedTiers(feature),
      };
    }),
  };
}
