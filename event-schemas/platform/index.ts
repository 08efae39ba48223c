/**
 * Every schema of the agent platform, by the name code refers to it with (the clearinghouse's are in
 * ../governance/index.ts). One namespace for both: `urn:gov:command:<name>`, `urn:gov:event:<Type>`,
 * `urn:gov:record:<name>`, `urn:gov:response:<name>`; names are unique across the two.
 */

import costEstimate from './commands/cost-estimate.json';
import agentAction from './records/agent-action.json';
import agentConfig from './records/agent-config.json';
import agentPassport from './records/agent-passport.json';
import agentPolicy from './records/agent-policy.json';
import platformArchitecture from './responses/platform-architecture.json';
import platformCapabilities from './responses/platform-capabilities.json';
import platformChannels from './responses/platform-channels.json';
import platformCostEstimate from './responses/platform-cost-estimate.json';
import platformCostModel from './responses/platform-cost-model.json';
import platformError from './responses/platform-error.json';
import platformHealth from './responses/platform-health.json';
import platformServices from './responses/platform-services.json';
import platformTiers from './responses/platform-tiers.json';
import platformVersion from './responses/platform-version.json';

/** Request bodies, by command name. */
export const platformCommandSchemas = {
  'cost-estimate': costEstimate,
} as const;

/** Domain event payloads (`data`), by event type. */
export const platformEventSchemas = {} as const;

/**
 * Records: the documents the platform's leaves carry (commitments, never content) and the parts they
 * are made of, referred to with `{"$ref": "urn:gov:record:<name>"}` like the clearinghouse's.
 */
export const platformRecordSchemas = {
  'agent-policy': agentPolicy,
  'agent-passport': agentPassport,
  'agent-config': agentConfig,
  'agent-action': agentAction,
} as const satisfies Record<string, { $id: string; title: string }>;

/** Response bodies of the platform's HTTP API (its OpenAPI document is built from them). */
export const platformResponseSchemas = {
  'platform-error': platformError,
  'platform-health': platformHealth,
  'platform-version': platformVersion,
  'platform-architecture': platformArchitecture,
  'platform-services': platformServices,
  'platform-capabilities': platformCapabilities,
  'platform-tiers': platformTiers,
  'platform-channels': platformChannels,
  'platform-cost-model': platformCostModel,
  'platform-cost-estimate': platformCostEstimate,
} as const satisfies Record<string, { $id: string; title: string }>;
