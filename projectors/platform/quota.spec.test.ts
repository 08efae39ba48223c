/**
 * The quota read model counts each agent's governed actions per UTC day (AgentActionDecided, whatever
 * the verdict), by the action's decided_at; a redelivered batch counts nothing twice. The events are
 * synthetic, with only the members the projection reads (the pipeline's event schema is not merged yet).
 */
import { ProjectionSpecification, type SpecEvent } from '../engine/projection-spec';
import { AGENT_QUOTA_DAYS, quotaProjection } from './quota';

const given = ProjectionSpecification.for(quotaProjection);
const AGENT = `svc_${'a'.repeat(26)}`;
const OTHER = `svc_${'b'.repeat(26)}`;

const action = (agent: string, decidedAt: string): SpecEvent => ({
  type: 'AgentActionDecided',
  stream: `agent-${agent}`,
  data: { decided_at: decidedAt },
});

describe('the quota projection', () => {
  it('given actions of two agents across midnight UTC, then a count per agent and UTC day', async () => {
    await given([
      action(AGENT, '2026-03-01T23:59:59.999Z'),
      action(AGENT, '2026-03-01T10:00:00.000Z'),
      action(AGENT, '2026-03-02T00:00:00.000Z'),
      action(OTHER, '2026-03-02T08:00:00.000Z'),
    ]).thenDocuments({
      [AGENT_QUOTA_DAYS]: {
        [`${AGENT}/2026-03-01`]: { agent_id: AGENT, day: '2026-03-01', used: 2 },
        [`${AGENT}/2026-03-02`]: { agent_id: AGENT, day: '2026-03-02', used: 1 },
        [`${OTHER}/2026-03-02`]: { agent_id: OTHER, day: '2026-03-02', used: 1 },
      },
    });
  });

  it('given a batch delivered twice, then each action is counted once', async () => {
    await given([action(AGENT, '2026-03-01T10:00:00.000Z')])
      .when([action(AGENT, '2026-03-01T11:00:00.000Z'), action(AGENT, '2026-03-01T12:00:00.000Z')], {
        numberOfTimes: 2,
      })
      .thenDocuments({
        [AGENT_QUOTA_DAYS]: { [`${AGENT}/2026-03-01`]: { agent_id: AGENT, day: '2026-03-01', used: 3 } },
      });
  });

  it('given an action without decided_at, then it counts on the day it was recorded', async () => {
    await given([
      {
        type: 'AgentActionDecided',
        stream: `agent-${AGENT}`,
        data: {},
        recorded_at: '2026-03-05T01:00:00.000Z',
      },
    ]).thenDocuments({
      [AGENT_QUOTA_DAYS]: { [`${AGENT}/2026-03-05`]: { agent_id: AGENT, day: '2026-03-05', used: 1 } },
    });
  });
});
