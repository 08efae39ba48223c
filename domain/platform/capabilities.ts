/**
 * The platform's feature catalog as data: every feature of the API with its maturity, whether this
 * release serves it, the lowest tier allowed to use it, and the per-tier limits that apply to it.
 * `GET /v1/capabilities` and `GET /v1/tiers` are generated from these tables, and the feature gate
 * (403 `feature_requires_upgrade`) reads the same ones, so what is advertised is what is enforced.
 *
 * `status` is how mature a feature is (`stable`, `beta`, `experimental`); `available` says whether
 * this release serves it at all. A feature not built yet is listed with `available: false` and
 * `status: 'experimental'`, so a client can plan for it and never mistakes it for something it can call.
 */
import { TIER_LIMITS, type Tier } from '../governance/tier-limits';

export type { Tier } from '../governance/tier-limits';

/** The tiers from lowest to highest: a feature allowed at one is allowed at every higher one. */
export const TIERS: readonly Tier[] = ['L1', 'L2', 'L2+', 'L4'];

export type FeatureStatus = 'stable' | 'beta' | 'experimental';

export type FeatureId =
  | 'accounts'
  | 'agents'
  | 'governed_actions'
  | 'chat'
  | 'memory'
  | 'profile'
  | 'config_export'
  | 'heartbeat'
  | 'schedules'
  | 'dream_tasks'
  | 'sub_agents'
  | 'rest_channel'
  | 'email_channel'
  | 'messaging_channel'
  | 'tools'
  | 'browser_tools'
  | 'files'
  | 'vault'
  | 'api_keys'
  | 'proofs'
  | 'governance_inspection'
  | 'cross_agent_governance'
  | 'event_log'
  | 'quota'
  | 'checkout'
  | 'dedicated_log';

/** The limits a tier sets; null = no limit. */
export interface PlatformTierLimits {
  /** Governed actions per agent per UTC day (every gated action counts, whatever its verdict). */
  governed_actions_per_day: number | null;
  /** Agents a user may own. */
  agents: number | null;
  /** Platform API requests per minute per user (the clearinghouse's per-tenant rate for the tier). */
  requests_per_minute: number;
  /** API keys per agent. */
  api_keys_per_agent: number;
  /** Memory entries per agent. */
  memory_entries_per_agent: number | null;
  /** Largest file upload, in bytes. */
  max_file_bytes: number;
  /** Encrypted file storage per agent, in bytes. */
  file_storage_bytes_per_agent: number;
  /** Active schedules per agent. */
  schedules_per_agent: number | null;
  /** Sub-agents running at once per agent. */
  concurrent_sub_agents: number;
}

export type LimitName = keyof PlatformTierLimits;

const MB = 1024 * 1024;
const GB = 1024 * MB;

/**
 * Per-tier limits, one table. L1 is for trying the platform (a few agents, a daily allowance of
 * governed actions a person chatting will not reach); L2 is a working team; L2+ runs autonomous
 * fleets; L4 is a dedicated deployment, its limits set by contract (these are its defaults). Features
 * a tier does not have get 0 for their limits (L1 cannot run schedules at all).
 */
export const PLATFORM_TIER_LIMITS: Readonly<Record<Tier, Readonly<PlatformTierLimits>>> = {
  L1: {
    governed_actions_per_day: 500,
    agents: 3,
    requests_per_minute: TIER_LIMITS.L1.requestsPerMinute,
    api_keys_per_agent: 5,
    memory_entries_per_agent: 10_000,
    max_file_bytes: 10 * MB,
    file_storage_bytes_per_agent: 100 * MB,
    schedules_per_agent: 0,
    concurrent_sub_agents: 0,
  },
  L2: {
    governed_actions_per_day: 10_000,
    agents: 20,
    requests_per_minute: TIER_LIMITS.L2.requestsPerMinute,
    api_keys_per_agent: 20,
    memory_entries_per_agent: 100_000,
    max_file_bytes: 50 * MB,
    file_storage_bytes_per_agent: GB,
    schedules_per_agent: 25,
    concurrent_sub_agents: 0,
  },
  'L2+': {
    governed_actions_per_day: 100_000,
    agents: 100,
    requests_per_minute: TIER_LIMITS['L2+'].requestsPerMinute,
    api_keys_per_agent: 100,
    memory_entries_per_agent: 1_000_000,
    max_file_bytes: 200 * MB,
    file_storage_bytes_per_agent: 10 * GB,
    schedules_per_agent: 100,
    concurrent_sub_agents: 10,
  },
  L4: {
    governed_actions_per_day: null,
    agents: null,
    requests_per_minute: TIER_LIMITS.L4.requestsPerMinute,
    api_keys_per_agent: 1000,
    memory_entries_per_agent: null,
    max_file_bytes: GB,
    file_storage_bytes_per_agent: 100 * GB,
    schedules_per_agent: null,
    concurrent_sub_agents: 50,
  },
};

export interface Feature {
  id: FeatureId;
  name: string;
  description: string;
  status: FeatureStatus;
  /** Whether this release serves it; false = listed for planning, not callable yet. */
  available: boolean;
  /** The lowest tier allowed to use it (PLATFORM.md "Feature gating"). */
  min_tier: Tier;
  /** The tier limits that apply to it. */
  limits: readonly LimitName[];
}

/**
 * The catalog. Tiers as the platform's feature gating sets them by default: chat, memory, profile and
 * heartbeat from L1; schedules and dream tasks from L2; sub-agents, email and messaging channels from
 * L2+; a dedicated log at L4; everything else from L1.
 */
export const FEATURES: readonly Feature[] = [
  {
    id: 'accounts',
    name: 'Accounts and sign-in',
    description:
      'Passwordless sign-in by emailed link, sessions (listed and revocable), roles, WebSocket tickets.',
    status: 'beta',
    available: true,
    min_tier: 'L1',
    limits: ['requests_per_minute'],
  },
  {
    id: 'agents',
    name: 'Agents',
    description:
      'Create, start, stop (with an automatic checkpoint), restore, roll back and delete agents; every configuration change a signed version.',
    status: 'beta',
    available: true,
    min_tier: 'L1',
    limits: ['agents'],
  },
  {
    id: 'governed_actions',
    name: 'Governed-action pipeline',
    description:
      'Every agent action passes five gates (policy, integrity, protected data, evidence class, operator and scope) and becomes a signed leaf in the transparency log.',
    status: 'beta',
    available: true,
    min_tier: 'L1',
    limits: ['governed_actions_per_day'],
  },
  {
    id: 'chat',
    name: 'Chat',
    description: 'Chat over a WebSocket: the verdict of the gates first, then the streamed reply.',
    status: 'experimental',
    available: false,
    min_tier: 'L1',
    limits: ['governed_actions_per_day'],
  },
  {
    id: 'memory',
    name: 'Memory',
    description: 'Signed memory entries with hybrid search, recall context, consolidation and TTL.',
    status: 'experimental',
    available: false,
    min_tier: 'L1',
    limits: ['memory_entries_per_agent'],
  },
  {
    id: 'profile',
    name: 'Profile',
    description:
      'A signed, versioned rulebook (persona, goals, rules, boundaries) amended by signed commits, with guided elicitation.',
    status: 'experimental',
    available: false,
    min_tier: 'L1',
    limits: [],
  },
  {
    id: 'config_export',
    name: 'Configuration export and import',
    description: 'A portable bundle of profile, memory and history with proofs; importing verifies it first.',
    status: 'experimental',
    available: false,
    min_tier: 'L1',
    limits: [],
  },
  {
    id: 'heartbeat',
    name: 'Heartbeat',
    description:
      'Approved recipes run on a cadence or on triggers in autonomous mode, every step a governed action.',
    status: 'experimental',
    available: false,
    min_tier: 'L1',
    limits: ['governed_actions_per_day'],
  },
  {
    id: 'schedules',
    name: 'Schedules',
    description:
      'Cron or ISO 8601 cadences that fire a message, a heartbeat or a task exactly once per due time.',
    status: 'experimental',
    available: false,
    min_tier: 'L2',
    limits: ['schedules_per_agent'],
  },
  {
    id: 'dream_tasks',
    name: 'Dream tasks',
    description: 'Multi-step governed tasks with per-step status, result and proof.',
    status: 'experimental',
    available: false,
    min_tier: 'L2',
    limits: ['governed_actions_per_day'],
  },
  {
    id: 'sub_agents',
    name: 'Sub-agents',
    description:
      "Delegated agents with a scope and budget inside the parent's, linked to the parent's proof chain.",
    status: 'experimental',
    available: false,
    min_tier: 'L2+',
    limits: ['concurrent_sub_agents'],
  },
  {
    id: 'rest_channel',
    name: 'REST channel',
    description: 'An inbound message over REST, answered with the governed reply.',
    status: 'experimental',
    available: false,
    min_tier: 'L1',
    limits: ['governed_actions_per_day'],
  },
  {
    id: 'email_channel',
    name: 'Email channel',
    description: "Inbound email through a provider's signed webhook.",
    status: 'experimental',
    available: false,
    min_tier: 'L2+',
    limits: ['governed_actions_per_day'],
  },
  {
    id: 'messaging_channel',
    name: 'Messaging-app channel',
    description: 'Inbound messages from a messaging app (verify-token handshake, HMAC-signed deliveries).',
    status: 'experimental',
    available: false,
    min_tier: 'L2+',
    limits: ['governed_actions_per_day'],
  },
  {
    id: 'tools',
    name: 'Tools',
    description: 'Built-in tools and MCP servers, each tool with its required scopes and governance class.',
    status: 'experimental',
    available: false,
    min_tier: 'L1',
    limits: ['governed_actions_per_day'],
  },
  {
    id: 'browser_tools',
    name: 'Summaries and screenshots',
    description:
      "A summary over a body of agent output, and screenshots through the agent's headless browser.",
    status: 'experimental',
    available: false,
    min_tier: 'L1',
    limits: ['governed_actions_per_day'],
  },
  {
    id: 'files',
    name: 'Files',
    description: 'Encrypted per-agent file storage (AES-256-GCM), a content-hash leaf per file.',
    status: 'experimental',
    available: false,
    min_tier: 'L1',
    limits: ['max_file_bytes', 'file_storage_bytes_per_agent'],
  },
  {
    id: 'vault',
    name: 'Key vault',
    description:
      'Bring-your-own model provider keys, encrypted at rest; only provider and prefix are ever shown.',
    status: 'beta',
    available: true,
    min_tier: 'L1',
    limits: [],
  },
  {
    id: 'api_keys',
    name: 'API keys',
    description: 'Per-agent svc_ keys with optional scopes, shown once, stored hashed.',
    status: 'beta',
    available: true,
    min_tier: 'L1',
    limits: ['api_keys_per_agent'],
  },
  {
    id: 'proofs',
    name: 'Proofs',
    description:
      "An inclusion proof for any of an agent's leaves, checkable against the public log, and the opening of its commitment for the owner.",
    status: 'beta',
    available: true,
    min_tier: 'L1',
    limits: [],
  },
  {
    id: 'governance_inspection',
    name: 'Governance inspection',
    description: "An agent's gate configuration, decisions, searches, traces, audits and pending reviews.",
    status: 'experimental',
    available: false,
    min_tier: 'L1',
    limits: [],
  },
  {
    id: 'cross_agent_governance',
    name: 'Cross-agent governance',
    description: "Export, live feed, events and summary across a user's agents.",
    status: 'experimental',
    available: false,
    min_tier: 'L1',
    limits: [],
  },
  {
    id: 'event_log',
    name: 'Event log',
    description: "An agent's own events, paged.",
    status: 'beta',
    available: true,
    min_tier: 'L1',
    limits: [],
  },
  {
    id: 'quota',
    name: 'Quota and billing summary',
    description: "Governed actions used and remaining today, per agent and across a user's agents.",
    status: 'beta',
    available: true,
    min_tier: 'L1',
    limits: ['governed_actions_per_day'],
  },
  {
    id: 'checkout',
    name: 'Checkout',
    description:
      "Tier upgrades through a payment provider's hosted checkout; the upgrade follows the provider's signed completion.",
    status: 'experimental',
    available: false,
    min_tier: 'L1',
    limits: [],
  },
  {
    id: 'dedicated_log',
    name: 'Dedicated log',
    description: "The tenant's own transparency log: its agents' leaves go there instead of the shared log.",
    status: 'beta',
    available: true,
    min_tier: 'L4',
    limits: [],
  },
];

const BY_ID = new Map<FeatureId, Feature>(FEATURES.map((feature) => [feature.id, feature]));

export function isFeatureId(value: unknown): value is FeatureId {
  return typeof value === 'string' && BY_ID.has(value as FeatureId);
}

export function featureOf(id: FeatureId): Feature {
  const feature = BY_ID.get(id);
  if (feature === undefined) throw new Error(`unknown feature ${id}`);
  return feature;
}

/** The lowest tier allowed to use a feature. */
export function requiredTier(feature: FeatureId): Tier {
  return featureOf(feature).min_tier;
}

function rank(tier: Tier): number {
  return TIERS.indexOf(tier);
}

/** Whether a tier may use a feature (its own tier or any higher one). */
export function allows(tier: Tier, feature: FeatureId): boolean {
  return rank(tier) >= rank(requiredTier(feature));
}

/** The tiers allowed to use a feature, lowest first. */
export function allowedTiers(feature: FeatureId): Tier[] {
  return TIERS.filter((tier) => allows(tier, feature));
}

/** What a gated route answers when the caller's tier lacks the feature: the 403 body, or null when allowed. */
export function featureGate(
  tier: Tier,
  feature: FeatureId,
): { error: 'feature_requires_upgrade'; detail: string; required_tier: Tier } | null {
  if (allows(tier, feature)) return null;
  const required = requiredTier(feature);
  const { name } = featureOf(feature);
  return {
    error: 'feature_requires_upgrade',
    detail: `${name} needs tier ${required} or higher; this account is on ${tier}. Upgrade with POST /v1/billing/checkout.`,
    required_tier: required,
  };
}

/** One entry of `GET /v1/capabilities`. */
export interface CapabilityEntry {
  feature: FeatureId;
  name: string;
  description: string;
  status: FeatureStatus;
  available: boolean;
  required_tier: Tier;
  tiers: Tier[];
  /** For each tier, the limits that apply to the feature (empty for tiers without it). */
  limits: Record<Tier, Partial<PlatformTierLimits>>;
}

export function capabilityCatalog(): CapabilityEntry[] {
  return FEATURES.map((feature) => ({
    feature: feature.id,
    name: feature.name,
    description: feature.description,
    status: feature.status,
    available: feature.available,
    required_tier: feature.min_tier,
    tiers: allowedTiers(feature.id),
    limits: Object.fromEntries(
      TIERS.map((tier) => [tier, allows(tier, feature.id) ? limitsOf(tier, feature.limits) : {}]),
    ) as Record<Tier, Partial<PlatformTierLimits>>,
  }));
}

function limitsOf(tier: Tier, names: readonly LimitName[]): Partial<PlatformTierLimits> {
  const limits = PLATFORM_TIER_LIMITS[tier];
  return Object.fromEntries(names.map((name) => [name, limits[name]])) as Partial<PlatformTierLimits>;
}

/** One entry of `GET /v1/tiers`: a tier, its limits, and the features it adds to the tier below. */
export interface TierEntry {
  tier: Tier;
  limits: PlatformTierLimits;
  features: FeatureId[];
  adds: FeatureId[];
}

export function tierCatalog(): TierEntry[] {
  return TIERS.map((tier, index) => ({
    tier,
    limits: { ...PLATFORM_TIER_LIMITS[tier] },
    features: FEATURES.filter((feature) => allows(tier, feature.id)).map((feature) => feature.id),
    adds: FEATURES.filter((feature) => rank(feature.min_tier) === index).map((feature) => feature.id),
  }));
}
