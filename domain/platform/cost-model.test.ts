import { type CostEstimateBody, costModel, estimateCost, riskTierOf } from './cost-model';

describe('the risk-tier cost model', () => {
  it.each([
    ['chat_message', undefined, 'low'],
    ['memory_write', undefined, 'medium'],
    ['channel_message', undefined, 'high'],
    ['subagent_spawn', undefined, 'high'],
    ['tool_call', undefined, 'medium'],
    ['tool_call', 'read', 'low'],
    ['tool_call', 'external', 'high'],
    ['tool_call', 'destructive', 'critical'],
    ['heartbeat_step', 'destructive', 'critical'],
    ['task_step', 'read', 'low'],
    // A tool class says nothing about actions that run no tool.
    ['memory_write', 'destructive', 'medium'],
  ] as const)('%s with tool class %s is %s risk', (actionType, toolClass, risk) => {
    expect(riskTierOf(actionType, toolClass)).toBe(risk);
  });

  it.each([
    [{ action_type: 'chat_message' }, 1, 1, 0],
    [{ action_type: 'chat_message', tier: 'L2' }, 1, 1, 0.002],
    [{ action_type: 'tool_call', tool_class: 'destructive', tier: 'L2' }, 10, 10, 0.02],
    [{ action_type: 'memory_write', content_bytes: 16 * 1024, tier: 'L2+' }, 2, 2, 0.003],
    [{ action_type: 'memory_write', content_bytes: 16 * 1024 + 1, tier: 'L2+' }, 4, 4, 0.006],
    [{ action_type: 'task_step', tool_class: 'external', quantity: 12, tier: 'L2' }, 5, 60, 0.12],
    [{ action_type: 'chat_message', quantity: 3, tier: 'L4' }, 1, 3, null],
  ] as const)('estimates %j: %s per action, %s credits, $%s', (body, perAction, credits, usd) => {
    const estimate = estimateCost(body);
    expect(estimate).toMatchObject({
      credits_per_action: perAction,
      credits,
      usd,
      quota_actions: (body as CostEstimateBody).quantity ?? 1,
    });
  });

  it('shows its arithmetic', () => {
    expect(
      estimateCost({ action_type: 'task_step', tool_class: 'external', quantity: 12, tier: 'L2' }).formula,
    ).toBe(
      'high risk: 5 credits × (1 + 0 extra 16 KiB blocks) = 5 per action; × 12 = 60 credits; 60 × $2 / 1000 = $0.12',
    );
    expect(estimateCost({ action_type: 'chat_message', tier: 'L4' }).formula).toMatch(
      /L4 is priced by contract$/,
    );
  });

  it.each([
    [{ action_type: 'chat_message', quantity: 0 }, /quantity/],
    [{ action_type: 'chat_message', quantity: 1.5 }, /quantity/],
    [{ action_type: 'chat_message', content_bytes: -1 }, /content_bytes/],
  ] as const)('refuses %j', (body, message) => {
    expect(() => estimateCost(body)).toThrow(message);
  });

  it('publishes the model it estimates with', () => {
    const model = costModel();
    expect(model.risk_tiers).toEqual({ low: 1, medium: 2, high: 5, critical: 10 });
    expect(model.tool_class_decides_for).toEqual(['tool_call', 'heartbeat_step', 'task_step']);
    expect(model.formula).toMatch(/credits per action/);
  });
});
