/** Every schema of the agent platform, by the name code refers to it with. Adding a platform schema starts here. */

import agentAction from './records/agent-action.json';
import agentConfig from './records/agent-config.json';
import agentPassport from './records/agent-passport.json';
import agentPolicy from './records/agent-policy.json';

/**
 * Records of the platform: the documents its leaves carry and the parts they are made of, referred to
 * with `{"$ref": "urn:gov:record:<name>"}` like the clearinghouse's; their TypeScript types are generated
 * alongside (`npm run schemas`).
 */
export const platformRecordSchemas = {
  'agent-policy': agentPolicy,
  'agent-passport': agentPassport,
  'agent-config': agentConfig,
  'agent-action': agentAction,
} as const satisfies Record<string, { $id: string; title: string }>;
