import type { GateName } from '../governance/gates';
import { INITIAL_OBSERVABLES, nudge } from '../governance/observables';
import {
  type AgentGovernanceOutcome,
  agentGovernanceState,
  autonomyAllowed,
  decideVerdict,
  evolveAgentGovernance,
  initialAgentGovernance,
  observableOutcomeOf,
  resolveEscalation,
} from './verdict';

const passed = { passed: true, gates_failed: [] as GateName[] };
const failed = (...gates: GateName[]) => ({ passed: false, gates_failed: gates });

describe('verdicts', () => {
  it.each([
    ['enforce', passed, 'ADMIT', false],
    ['monitor', passed, 'ADMIT', false],
    ['review', passed, 'ADMIT', false],
    ['enforce', failed('G1'), 'BLOCK', true],
    ['monitor', failed('G1'), 'ADMIT', true],
    ['review', failed('G1'), 'ESCALATE', true],
  ] as const)('in %s mode, gates %j give %s (would_block %s)', (mode, evaluation, verdict, wouldBlock) => {
    expect(decideVerdict(evaluation, mode)).toEqual({
      verdict,
      would_block: wouldBlock,
      gates_failed: [...evaluation.gates_failed],
    });
  });

  it('resolves an escalation by the human decision', () => {
    expect(resolveEscalation('approve')).toBe('ADMIT');
    expect(resolveEscalation('reject')).toBe('BLOCK');
  });

  it.each([
    [{ would_block: false, gates_failed: [] }, 'NOMINAL'],
    [{ would_block: true, gates_failed: ['G1'] }, 'DRIFT'],
    [{ would_block: true, gates_failed: ['G4', 'G5'] }, 'DRIFT'],
    [{ would_block: true, gates_failed: ['G2'] }, 'BREACH'],
    [{ would_block: true, gates_failed: ['G1', 'G3'] }, 'BREACH'],
  ] as const)('a decision %j nudges the observables like %s', (decision, outcome) => {
    expect(observableOutcomeOf(decision)).toBe(outcome);
  });
});

describe('the agent governance fold', () => {
  const at = (n: number) => `2026-11-27T10:00:${String(n).padStart(2, '0')}.000Z`;
  const decision = (
    verdict: 'ADMIT' | 'BLOCK' | 'ESCALATE',
    n: number,
    ...gates: GateName[]
  ): AgentGovernanceOutcome => ({
    kind: 'decision',
    verdict,
    would_block: gates.length > 0,
    gates_failed: gates,
    at: at(n),
  });

  it('starts ACTIVE with the initial observables', () => {
    expect(agentGovernanceState([])).toEqual(initialAgentGovernance());
    expect(initialAgentGovernance().observables).toEqual(INITIAL_OBSERVABLES);
  });

  it('nudges the observables as the clearinghouse does', () => {
    const state = agentGovernanceState([
      decision('ADMIT', 1),
      decision('BLOCK', 2, 'G1'),
      decision('BLOCK', 3, 'G2'),
    ]);
    expect(state.observables).toEqual(nudge(nudge(nudge(INITIAL_OBSERVABLES, 'NOMINAL'), 'DRIFT'), 'BREACH'));
  });

  it('quarantines after three consecutive blocks, and only the owner releases it', () => {
    const blocks = [decision('BLOCK', 1, 'G1'), decision('BLOCK', 2, 'G5'), decision('BLOCK', 3, 'G3')];
    const quarantined = agentGovernanceState(blocks);
    expect(quarantined).toMatchObject({
      lifecycle: 'QUARANTINE',
      consecutive_blocks: 3,
      blocked: 3,
      quarantined_at: at(3),
    });
    expect(autonomyAllowed(quarantined)).toBe(false);
    const admittedSince = evolveAgentGovernance(quarantined, decision('ADMIT', 4));
    expect(admittedSince).toMatchObject({ lifecycle: 'QUARANTINE', consecutive_blocks: 0 });
    const released = evolveAgentGovernance(admittedSince, { kind: 'acknowledge', at: at(5) });
    expect(released).toMatchObject({
      lifecycle: 'ACTIVE',
      consecutive_blocks: 0,
      quarantined_at: null,
      updated_at: at(5),
    });
    expect(autonomyAllowed(released)).toBe(true);
  });

  it.each<[string, AgentGovernanceOutcome[], 'ACTIVE' | 'QUARANTINE', number]>([
    [
      'an ADMIT breaks the streak',
      [
        decision('BLOCK', 1, 'G1'),
        decision('BLOCK', 2, 'G1'),
        decision('ADMIT', 3),
        decision('BLOCK', 4, 'G1'),
      ],
      'ACTIVE',
      1,
    ],
    [
      'monitor-mode would-blocks are not blocks',
      [1, 2, 3].map((n) => ({ ...decision('ADMIT', n, 'G1') })),
      'ACTIVE',
      0,
    ],
    [
      'a pending escalation neither counts nor breaks the streak',
      [decision('BLOCK', 1, 'G1'), decision('BLOCK', 2, 'G1'), decision('ESCALATE', 3, 'G1')],
      'ACTIVE',
      2,
    ],
    [
      'a rejected escalation is a block',
      [
        decision('BLOCK', 1, 'G1'),
        decision('BLOCK', 2, 'G1'),
        decision('ESCALATE', 3, 'G1'),
        { kind: 'review', verdict: 'BLOCK', at: at(4) },
      ],
      'QUARANTINE',
      3,
    ],
    [
      'an approved escalation is an admission',
      [
        decision('BLOCK', 1, 'G1'),
        decision('ESCALATE', 2, 'G1'),
        { kind: 'review', verdict: 'ADMIT', at: at(3) },
      ],
      'ACTIVE',
      0,
    ],
  ])('%s', (_name, outcomes, lifecycle, blocks) => {
    const state = agentGovernanceState(outcomes);
    expect(state.lifecycle).toBe(lifecycle);
    expect(state.consecutive_blocks).toBe(blocks);
  });

  it('counts verdicts and pending reviews', () => {
    const state = agentGovernanceState([
      decision('ADMIT', 1),
      decision('ESCALATE', 2, 'G1'),
      decision('ESCALATE', 3, 'G2'),
      { kind: 'review', verdict: 'ADMIT', at: at(4) },
      decision('BLOCK', 5, 'G5'),
    ]);
    expect(state).toMatchObject({
      admitted: 2,
      blocked: 1,
      escalated: 2,
      pending_reviews: 1,
      updated_at: at(5),
    });
    // The rejected-or-approved review does not nudge again: two escalations, one block, one admit.
    expect(state.observables).toEqual(
      nudge(nudge(nudge(nudge(INITIAL_OBSERVABLES, 'NOMINAL'), 'DRIFT'), 'BREACH'), 'DRIFT'),
    );
  });
});
