/**
 * The quota read model: each agent's governed actions per UTC day, counted from its stream. Every
 * governed action the pipeline decides (`AgentActionDecided`, whatever its verdict) counts, as the
 * capability table's `governed_actions_per_day` says; the clearinghouse's trial cap counts evidence
 * leaves only and never these. The day is the action's `decided_at` (UTC; the event's commit time
 * when it has none), the same on every process and the same the pipeline counts by.
 */
import type { RecordedEvent } from '../../ports/event-store';
import type { Change } from '../../ports/read-store';
import type { Projection, ProjectionState } from '../engine/projection';

export interface AgentQuotaDayView {
  agent_id: string;
  /** `YYYY-MM-DD`, UTC. */
  day: string;
  used: number;
}

export const AGENT_QUOTA_DAYS = 'platform_agent_quota_days';

/** The events that are governed actions of an agent (one per action, in the agent's stream). */
const GOVERNED_ACTION_EVENT_TYPES = ['AgentActionDecided'] as const;

const AGENT_STREAM = 'agent-';

export function quotaDayId(agentId: string, day: string): string {
  return `${agentId}/${day}`;
}

/** The UTC day of an ISO 8601 time. */
export function utcDay(iso: string): string {
  return new Date(iso).toISOString().slice(0, 10);
}

function keyOf(event: RecordedEvent): { agentId: string; day: string; id: string } | null {
  if (!event.stream.startsWith(AGENT_STREAM)) return null;
  const agentId = event.stream.slice(AGENT_STREAM.length);
  const decidedAt = (event.data as { decided_at?: unknown } | null)?.decided_at;
  const day = utcDay(typeof decidedAt === 'string' ? decidedAt : event.recorded_at);
  return { agentId, day, id: quotaDayId(agentId, day) };
}

export const quotaProjection: Projection = {
  name: 'platform-quota',
  version: 1,
  collections: [AGENT_QUOTA_DAYS],
  indexes: [{ collection: AGENT_QUOTA_DAYS, fields: ['agent_id'] }],
  eventTypes: GOVERNED_ACTION_EVENT_TYPES,
  // Only the day is counted: an action's content, record and nonces are never read here.
  dataMembers: { AgentActionDecided: ['decided_at'] },
  async project(event: RecordedEvent, state: ProjectionState): Promise<Change[]> {
    const key = keyOf(event);
    if (!key) return [];
    const before = await state.get<AgentQuotaDayView>(AGENT_QUOTA_DAYS, key.id);
    const day: AgentQuotaDayView = {
      agent_id: key.agentId,
      day: key.day,
      used: (before?.data.used ?? 0) + 1,
    };
    return [
      { kind: 'upsert', collection: AGENT_QUOTA_DAYS, id: key.id, position: event.position, data: day },
    ];
  },
  reads(event) {
    const key = keyOf(event);
    return key ? [{ collection: AGENT_QUOTA_DAYS, id: key.id }] : [];
  },
};
