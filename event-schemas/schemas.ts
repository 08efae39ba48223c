/**
 * The schemas of both services in one map per kind: what validation, the generated types and the
 * schema tests read. Each service's own maps are in its folder (governance/, platform/).
 */
import * as governance from './governance';
import {
  platformCommandSchemas,
  platformEventSchemas,
  platformRecordSchemas,
  platformResponseSchemas,
} from './platform';

export const commandSchemas = { ...governance.commandSchemas, ...platformCommandSchemas } as const;
export const eventSchemas = { ...governance.eventSchemas, ...platformEventSchemas } as const;
export const recordSchemas = { ...governance.recordSchemas, ...platformRecordSchemas } as const;
export const responseSchemas = { ...governance.responseSchemas, ...platformResponseSchemas } as const;
export const { webhookSchemas, envelopeSchema } = governance;
