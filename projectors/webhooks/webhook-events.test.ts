import { createHash } from 'node:crypto';
import { OMEGA } from '../../domain/governance/observables';
import { webhookSchemas } from '../../event-schemas/governance';
import {
  CHAIN_DEPTH_MILESTONES,
  chainDepthMilestone,
  omegaAlert,
  WEBHOOK_EVENT_NAMES,
  WEBHOOK_EVENTS_BY_SOURCE,
  webhookEventId,
  webhookLinks,
} from './webhook-events';

describe('webhook events', () => {
  it('names exactly the eight events of the spec, each with its schema, each fired by one kind of domain event', () => {
    expect(WEBHOOK_EVENT_NAMES).toEqual(Object.keys(webhookSchemas));
    expect(WEBHOOK_EVENT_NAMES).toHaveLength(8);
    const fired = Object.values(WEBHOOK_EVENTS_BY_SOURCE).flat();
    expect(new Set(fired)).toEqual(new Set(WEBHOOK_EVENT_NAMES));
  });

  it('given a source event id and an event name, then the event id is evt_ + the first 32 hex of their SHA-256', () => {
    const source = '0b5e2a55-6a43-4a1f-9d2c-3c1f1bde0e11';
    const expected = createHash('sha256').update(`${source}:leaf_admitted`).digest('hex').slice(0, 32);
    expect(webhookEventId(source, 'leaf_admitted')).toBe(`evt_${expected}`);
    expect(webhookEventId(source, 'leaf_admitted')).toBe(webhookEventId(source, 'leaf_admitted'));
    expect(webhookEventId(source, 'observables_alert')).not.toBe(webhookEventId(source, 'leaf_admitted'));
    expect(webhookEventId(source, 'gate_fail')).toMatch(/^evt_[0-9a-f]{32}$/);
  });

  it('fires chain milestones at exactly 10, 100 and 1000 leaves', () => {
    expect(CHAIN_DEPTH_MILESTONES).toEqual([10, 100, 1000]);
    const hits = Array.from({ length: 1200 }, (_, i) => i + 1).filter((depth) => chainDepthMilestone(depth));
    expect(hits).toEqual([10, 100, 1000]);
    expect(chainDepthMilestone(11)).toBeNull();
  });

  describe('Ω crossings', () => {
    const inside = { H: 0.5, C: 0.5, E: 0.5 };

    it('given a move within Ω or outside it, then there is no alert', () => {
      expect(omegaAlert(inside, { H: 0.41, C: 0.9, E: 0.6 })).toBeNull();
      expect(omegaAlert({ H: 0.1, C: 0.5, E: 0.5 }, { H: 0.2, C: 0.1, E: 0.9 })).toBeNull();
    });

    it('given a move out of Ω, then it names each bound whose side changed', () => {
      expect(omegaAlert(inside, { H: 0.38, C: 0.41, E: 0.62 })).toEqual({
        crossing: 'left_omega',
        thresholds_crossed: [
          { observable: 'H', threshold: OMEGA.min_H, bound: 'min' },
          { observable: 'E', threshold: OMEGA.max_E, bound: 'max' },
        ],
      });
    });

    it('given a move back into Ω exactly onto its bounds, then it has entered', () => {
      expect(omegaAlert({ H: 0.5, C: 0.39, E: 0.5 }, { H: 0.4, C: 0.4, E: 0.6 })).toEqual({
        crossing: 'entered_omega',
        thresholds_crossed: [{ observable: 'C', threshold: OMEGA.min_C, bound: 'min' }],
      });
    });
  });

  it('builds links under the public base URL, without a doubled slash', () => {
    const links = webhookLinks('https://gov.example/');
    const hash = 'a'.repeat(64);
    expect(links.replay(hash)).toBe(`https://gov.example/governance/replay/${hash}`);
    expect(links.report(hash)).toBe(`https://gov.example/governance/report/${hash}`);
    expect(links.variance(hash)).toBe(`https://gov.example/governance/variance/${hash}`);
    expect(links.chain()).toBe('https://gov.example/governance/chain');
    expect(links.leaf(7)).toBe('https://gov.example/gov/v1/log/leaf?index=7');
    expect(links.status('model 7/a')).toBe('https://gov.example/governance/status?subject_id=model%207%2Fa');
  });
});
