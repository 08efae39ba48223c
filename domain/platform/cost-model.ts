/**
 * The risk-tier cost model behind `GET /v1/cost-model` and `POST /v1/cost-estimate`.
 *
 * An action's risk tier follows from what it can do: reading is low, writing the agent's own state is
 * medium, reaching outside (a tool of class `external`, a spawned sub-agent, an inbound channel) is
 * high, and a destructive tool is critical. A tool class, when given, sets the tier of a tool call or
 * an autonomous step; the action type sets it otherwise.
 *
 *   credits per action = tier credits × (1 + extra 16 KiB blocks of content)
 *   credits            = credits per action × quantity
 *   price (USD)        = credits × the tier's price per 1,000 credits ÷ 1,000
 *
 * Tier credits: low 1, medium 2, high 5, critical 10. Content up to 16 KiB costs nothing extra; each
 * further started 16 KiB adds one more unit of the tier's credits (gating and hashing scale with size).
 * Every action also counts once against the daily governed-action quota, whatever its credits.
 */
import type { ActionType, ToolClass } from './action-gates';
import type { Tier } from './capabilities';

export type RiskTier = 'low' | 'medium' | 'high' | 'critical';

export const RISK_TIER_CREDITS: Readonly<Record<RiskTier, number>> = {
  low: 1,
  medium: 2,
  high: 5,
  critical: 10,
};

/** The risk of each action type when no tool class says otherwise. */
export const ACTION_RISK: Readonly<Record<ActionType, RiskTier>> = {
  chat_message: 'low',
  tool_call: 'medium',
  memory_write: 'medium',
  memory_delete: 'medium',
  profile_amendment: 'medium',
  heartbeat_step: 'medium',
  task_step: 'medium',
  subagent_spawn: 'high',
  channel_message: 'high',
  config_change: 'medium',
};

/** The risk of a tool by its governance class; it decides for tool calls and autonomous steps. */
export const TOOL_CLASS_RISK: Readonly<Record<ToolClass, RiskTier>> = {
  read: 'low',
  write: 'medium',
  external: 'high',
  destructive: 'critical',
};

/** Action types whose risk a tool class decides: the ones that run tools. */
const RUN_TOOLS: ReadonlySet<ActionType> = new Set<ActionType>(['tool_call', 'heartbeat_step', 'task_step']);

/** Content covered by an action's base credits; each further started block adds one more unit. */
export const CONTENT_BLOCK_BYTES = 16 * 1024;

/** USD per 1,000 credits by tier: L1 is included in its daily allowance; L4 is priced by contract (null). */
export const USD_PER_1000_CREDITS: Readonly<Record<Tier, number | null>> = {
  L1: 0,
  L2: 2,
  'L2+': 1.5,
  L4: null,
};

export interface CostEstimateBody {
  action_type: ActionType;
  tool_class?: ToolClass;
  /** Size of the content in bytes (default 0). */
  content_bytes?: number;
  /** How many such actions (default 1): the steps of a task, the runs of a schedule. */
  quantity?: number;
  /** The tier to price at (default L1). */
  tier?: Tier;
}

export interface CostEstimate {
  action_type: ActionType;
  tool_class: ToolClass | null;
  risk_tier: RiskTier;
  credits_per_action: number;
  quantity: number;
  credits: number;
  tier: Tier;
  /** null when the tier is priced by contract. */
  usd: number | null;
  /** Governed actions this uses from the daily quota. */
  quota_actions: number;
  /** The arithmetic, in words. */
  formula: string;
}

export function riskTierOf(actionType: ActionType, toolClass?: ToolClass): RiskTier {
  return toolClass !== undefined && RUN_TOOLS.has(actionType)
    ? TOOL_CLASS_RISK[toolClass]
    : ACTION_RISK[actionType];
}

export function estimateCost(body: CostEstimateBody): CostEstimate {
  const quantity = body.quantity ?? 1;
  const bytes = body.content_bytes ?? 0;
  const tier = body.tier ?? 'L1';
  if (!Number.isInteger(quantity) || quantity < 1) throw new RangeError('quantity is a positive integer');
  if (!Number.isInteger(bytes) || bytes < 0) throw new RangeError('content_bytes is a non-negative integer');
  const risk = riskTierOf(body.action_type, body.tool_class);
  const extraBlocks = Math.max(0, Math.ceil(bytes / CONTENT_BLOCK_BYTES) - 1);
  const perAction = RISK_TIER_CREDITS[risk] * (1 + extraBlocks);
  const credits = perAction * quantity;
  const rate = USD_PER_1000_CREDITS[tier];
  const usd = rate === null ? null : Math.round(credits * rate * 1000) / 1e6;
  const price = rate === null ? `${tier} is priced by contract` : `${credits} × $${rate} / 1000 = $${usd}`;
  return {
    action_type: body.action_type,
    tool_class: body.tool_class ?? null,
    risk_tier: risk,
    credits_per_action: perAction,
    quantity,
    credits,
    tier,
    usd,
    quota_actions: quantity,
    formula:
      `${risk} risk: ${RISK_TIER_CREDITS[risk]} credits × (1 + ${extraBlocks} extra 16 KiB blocks) = ${perAction} per action; ` +
      `× ${quantity} = ${credits} credits; ${price}`,
  };
}

/** The model as `GET /v1/cost-model` shows it. */
export function costModel() {
  return {
    unit: 'credit',
    risk_tiers: RISK_TIER_CREDITS,
    action_risk: ACTION_RISK,
    tool_class_risk: TOOL_CLASS_RISK,
    tool_class_decides_for: [...RUN_TOOLS],
    content_block_bytes: CONTENT_BLOCK_BYTES,
    usd_per_1000_credits: USD_PER_1000_CREDITS,
    formula:
      'credits per action = risk tier credits × (1 + extra started 16 KiB blocks of content beyond the first); ' +
      "credits = credits per action × quantity; price = credits × the tier's USD per 1,000 credits ÷ 1,000. " +
      'Every action also counts once against the daily governed-action quota.',
  };
}
