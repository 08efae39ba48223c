import { readFileSync } from 'node:fs';
import path from 'node:path';
import { type AttemptRecord, type DeliveryLogEntry, scheduleOf } from './delivery-log';
import { MAX_ATTEMPTS, RETRY_SCHEDULE_SECONDS } from './retry-policy';

function entry(status: DeliveryLogEntry['status'], attempts: number): DeliveryLogEntry {
  const made: AttemptRecord[] = Array.from({ length: attempts }, (_, i) => ({
    attempt: i + 1,
    at: '2025-06-01T12:00:00.000Z',
    status_code: 500,
    error: null,
    latency_ms: 1,
  }));
  return {
    delivery_id: 'dlv_000000000ab_00000',
    webhook_id: 'wh_000000000000000000000001',
    tenant_id: 'ten_1',
    event_id: `evt_${'0'.repeat(32)}`,
    event_type: 'gate_fail',
    seq: 1,
    queued_at: '2025-06-01T12:00:00.000Z',
    redelivery_of: null,
    body_bytes: 10,
    status,
    attempts: made,
    next_attempt_at: null,
  };
}

describe('the schedule a delivery log entry shows', () => {
  it.each([
    ['pending', 0],
    ['pending', 4], // left by a release that stopped at 5: it continues on the current schedule
    ['pending', 5],
    ['delivered', 1],
    ['cancelled', 2],
    ['failed', 6],
  ] as const)(
    'given a %s delivery with %i attempts, then it is the current schedule: 6 attempts, retries after 5 s, 30 s, 2 min, 10 min, 30 min',
    (status, attempts) => {
      expect(scheduleOf(entry(status, attempts))).toEqual({
        max_attempts: 6,
        retry_schedule_seconds: [5, 30, 120, 600, 1800],
      });
    },
  );

  it('given a delivery an older release gave up after 5 attempts, then it shows the schedule it ended on', () => {
    expect(scheduleOf(entry('failed', 5))).toEqual({
      max_attempts: 5,
      retry_schedule_seconds: [5, 30, 120, 600],
    });
  });

  it("the delivery log's published schema allows exactly the schedule's attempts", () => {
    const schema = JSON.parse(
      readFileSync(
        path.join(__dirname, '../../event-schemas/governance/responses/delivery-log.json'),
        'utf8',
      ),
    );
    const { delivery, attempt } = schema.$defs;
    expect(delivery.properties.max_attempts.maximum).toBe(MAX_ATTEMPTS);
    expect(delivery.properties.attempts.maxItems).toBe(MAX_ATTEMPTS);
    expect(delivery.properties.retry_schedule_seconds.maxItems).toBe(RETRY_SCHEDULE_SECONDS.length);
    expect(attempt.properties.attempt.maximum).toBe(MAX_ATTEMPTS);
    expect(delivery.properties.retry_schedule_seconds.description).toContain(
      JSON.stringify(RETRY_SCHEDULE_SECONDS).replaceAll(',', ', '),
    );
  });
});
