/**
 * How the service delivers webhooks, as the OpenAPI document tells receivers (POST /webhooks, the
 * delivery log and the `webhooks` section), written from the constants and settings that make it so.
 */
import {
  DELIVERY_ATTEMPT_HEADER,
  DELIVERY_ID_HEADER,
  EVENT_ID_HEADER,
  EVENT_TYPE_HEADER,
  MAX_PAYLOAD_BYTES,
  MAX_RESPONSE_BYTES,
  USER_AGENT,
  WEBHOOK_ID_HEADER,
} from '../../../projectors/webhooks/http-deliverer';
import { BACKOFF_MS, MAX_ATTEMPTS, RETRY_AFTER_CAP_MS } from '../../../projectors/webhooks/retry-policy';
import { SIGNATURE_HEADER } from '../../../projectors/webhooks/signature';
import { type DocumentSettings, duration } from '../../../runtime/http/openapi-parts';

/** 131072 → `128 KB`. */
export const PAYLOAD_LIMIT = `${MAX_PAYLOAD_BYTES / 1024} KB`;
/** What of a receiver's answer is read: 65536 → `64 KiB`. */
export const ANSWER_READ_LIMIT = `${MAX_RESPONSE_BYTES / 1024} KiB`;

const WEBHOOK_SIGNATURE = `Every delivery is an HTTP POST of the event's JSON body (Content-Type: application/json, User-Agent: ${USER_AGENT}) signed with the webhook's secret: \`${SIGNATURE_HEADER}: sha256=<hex HMAC-SHA256 of the raw body>\`, the lowercase hex HMAC-SHA256 keyed with the secret over the exact bytes received (GitHub's scheme; compare in constant time before parsing). The other delivery headers: ${EVENT_ID_HEADER} (the event id, the same on every delivery of the event — each webhook, retry and redelivery: deduplicate on it), ${EVENT_TYPE_HEADER} (the event name), ${WEBHOOK_ID_HEADER} (the webhook the delivery is for), ${DELIVERY_ID_HEADER} (this delivery, as listed by GET /webhooks/{id}/deliveries) and ${DELIVERY_ATTEMPT_HEADER} (1 to ${MAX_ATTEMPTS}).`;

export const webhookRetries = (settings: DocumentSettings): string =>
  `Only an HTTP 200 answer is success; any other status, a redirect (never followed), a connection error or no answer within ${duration(settings.webhookTimeoutMs)} (GOV_WEBHOOK_TIMEOUT_MS) fails the attempt. ${MAX_ATTEMPTS} attempts in all, the first and ${BACKOFF_MS.length} retries: immediately, then ${BACKOFF_MS.map((ms) => `+${duration(ms)}`).join(', ')} after each failure; after the ${MAX_ATTEMPTS}th failure the delivery is marked failed (the delivery log shows the schedule as \`max_attempts\` and \`retry_schedule_seconds\`). A 429 or 503 answer with Retry-After (delta-seconds or an HTTP-date) is honoured: the next attempt waits for the later of the backoff and Retry-After, at most ${duration(RETRY_AFTER_CAP_MS)} after the failure. Delivery is at least once: an event can arrive more than once.`;

const WEBHOOK_PAYLOAD_LIMIT = `A body is at most ${PAYLOAD_LIMIT} (${MAX_PAYLOAD_BYTES} bytes): a payload that would be larger is trimmed to a summary of its identifying fields with \`trimmed: true\`, \`original_bytes\` and a \`url\` where the full record can be read.`;

/** How every delivery is made, retried and bounded: the three paragraphs above. */
export const webhookDelivery = (settings: DocumentSettings): string =>
  [WEBHOOK_SIGNATURE, webhookRetries(settings), WEBHOOK_PAYLOAD_LIMIT].join('\n\n');
