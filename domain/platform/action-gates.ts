/**
 * The five gates every agent action passes (PLATFORM.md "The governed action pipeline"), each with one
 * sentence saying what it found, also when it passed:
 *
 * - G1 policy: no `must_not` rule of the agent's profile or tenant policy matches the content;
 * - G2 integrity: the content's prompt-injection score is at most the threshold;
 * - G3 protected data: secrets and personal data in the content are within the policy's maxima;
 * - G4 evidence class: the action was observed the way the policy allows;
 * - G5 operator and scope: an accountable principal is bound, the action is inside its scope and budget,
 *   and a destructive tool has a human's approval.
 *
 * Pure and cheap: rules are compiled once per policy object, content is scanned once per detector.
 * Reasons name rules, signals, kinds and counts, never the content.
 */
import type { AgentPolicy } from '../../event-schemas';
import { EVIDENCE_CLASSES, type GateName } from '../governance/gates';
import { deepFreeze } from '../governance/policy';
import { formatNumber } from '../governance/wording';
import { countFindings, detectProtectedData, type FindingCounts, redact } from './detectors';
import { assessInjection, DEFAULT_INJECTION_THRESHOLD, type InjectionAssessment } from './injection';
import { compileLinearRegex, type LinearRegex } from './linear-regex';

export type { AgentPolicy } from '../../event-schemas';

export const ACTION_TYPES = [
  'chat_message',
  'tool_call',
  'memory_write',
  'memory_delete',
  'profile_amendment',
  'heartbeat_step',
  'task_step',
  'subagent_spawn',
  'channel_message',
  'config_change',
] as const;
export type ActionType = (typeof ACTION_TYPES)[number];

export type EvidenceClass = (typeof EVIDENCE_CLASSES)[number];

export const PRINCIPAL_KINDS = ['user', 'key', 'recipe', 'schedule', 'delegation'] as const;
export type PrincipalKind = (typeof PRINCIPAL_KINDS)[number];

export const TOOL_CLASSES = ['read', 'write', 'external', 'destructive'] as const;
export type ToolClass = (typeof TOOL_CLASSES)[number];

/** Who answers for an action: the user or key that sent it, the approver of a recipe or schedule, the parent's delegation. */
export interface Principal {
  kind: PrincipalKind;
  /** `usr_…`, `key_…`, a recipe, schedule or delegation id: never an email. */
  id: string;
  /** The scopes it holds; absent = every scope of the agent (its owner, a key created without scopes). */
  scopes?: readonly string[];
}

/** One action on its way through the gates. */
export interface GovernedAction {
  type: ActionType;
  /** What reaches the model or the store (the message, the tool's arguments, the memory text, …). */
  content: string;
  /** The content came from a channel, a tool or a fetched page: data, never instructions. */
  content_is_data: boolean;
  evidence_class: EvidenceClass;
  principal: Principal;
  /** The scope the action needs (`chat`, `memory:write`, `tools`, …); absent = none. */
  required_scope?: string;
  /** The governance class of the tool a tool call runs. */
  tool_class?: ToolClass;
  approved_by_human?: boolean;
  /** False when the principal's budget (steps, tokens, runs per day, deadline) is spent; absent = within it. */
  within_budget?: boolean;
}

export interface ActionGateResult {
  gate: GateName;
  passed: boolean;
  /** One sentence: what was checked and found. Names rules, signals, kinds and counts, never content. */
  reason: string;
}

export interface ActionGateEvaluation {
  passed: boolean;
  /** G1 to G5, in order. */
  gates: ActionGateResult[];
  /** The failing gates, in order. */
  gates_failed: GateName[];
  /** G2's assessment (score and signal names). */
  injection: InjectionAssessment;
  /** G3's findings, counted by category and kind. */
  protected_data: FindingCounts;
  content_is_data: boolean;
}

/**
 * Every agent's policy until its owner changes it: no must_not rule, injection threshold 0.5, no
 * secret in content, no maximum on personal data (people share their own contact details with their
 * agent; a policy that forbids it sets a maximum), model output redacted, any evidence class, and a
 * human's approval for destructive tools.
 */
export const DEFAULT_AGENT_POLICY: AgentPolicy = deepFreeze({
  g1_must_not: [],
  g2_injection_threshold: DEFAULT_INJECTION_THRESHOLD,
  g3_max_secrets: 0,
  g3_max_personal_data: null,
  g3_redact_model_output: true,
  g4_allowed_evidence_classes: [...EVIDENCE_CLASSES],
  g5_destructive_requires_approval: true,
});

export function evaluateActionGates(action: GovernedAction, policy: AgentPolicy): ActionGateEvaluation {
  const injection = assessInjection(action.content);
  const protectedData = countFindings(detectProtectedData(action.content));
  const gates: ActionGateResult[] = [
    g1(action, policy),
    g2(action, policy, injection),
    g3(policy, protectedData),
    g4(action, policy),
    g5(action, policy),
  ];
  const failed = gates.filter((gate) => !gate.passed).map((gate) => gate.gate);
  return {
    passed: failed.length === 0,
    gates,
    gates_failed: failed,
    injection,
    protected_data: protectedData,
    content_is_data: action.content_is_data,
  };
}

/**
 * Model output is redacted, never blocked: each secret and personal datum becomes `[REDACTED:<kind>]`
 * when the policy says so (the default), and the counts say what was taken out.
 */
export function redactModelOutput(
  text: string,
  policy: AgentPolicy,
): { text: string; redacted: FindingCounts } {
  if (!policy.g3_redact_model_output) return { text, redacted: countFindings([]) };
  const findings = detectProtectedData(text);
  return { text: redact(text, findings), redacted: countFindings(findings) };
}

// ------------------------------------------------------------------------------------------------ G1

type MustNotRule = AgentPolicy['g1_must_not'][number];

/** A rule ready to match: a lower-cased substring, a linear-time regex, or the reason its pattern cannot be checked. */
type CompiledRule =
  | { rule: MustNotRule; substring: string }
  | { rule: MustNotRule; regex: LinearRegex }
  | { rule: MustNotRule; problem: string };

/** `/source/` is a regular expression; anything else a case-insensitive substring. */
const REGEX_FORM = /^\/(.+)\/$/s;

/** Why a must_not pattern cannot be used, or null when it can: for the command that sets a policy. */
export function mustNotPatternProblem(pattern: string): string | null {
  if (pattern.length === 0) return 'a must_not pattern is empty';
  const source = REGEX_FORM.exec(pattern)?.[1];
  if (source === undefined) return null;
  const compiled = compileLinearRegex(source);
  return compiled.ok ? null : compiled.problem;
}

const compiledRules = new WeakMap<AgentPolicy['g1_must_not'], CompiledRule[]>();

function rulesOf(policy: AgentPolicy): CompiledRule[] {
  let rules = compiledRules.get(policy.g1_must_not);
  if (rules === undefined) {
    rules = policy.g1_must_not.map(compileRule);
    compiledRules.set(policy.g1_must_not, rules);
  }
  return rules;
}

function compileRule(rule: MustNotRule): CompiledRule {
  const source = REGEX_FORM.exec(rule.pattern)?.[1];
  if (source === undefined) return { rule, substring: rule.pattern.toLowerCase() };
  const compiled = compileLinearRegex(source);
  return compiled.ok ? { rule, regex: compiled.regex } : { rule, problem: compiled.problem };
}

function g1(action: GovernedAction, policy: AgentPolicy): ActionGateResult {
  const rules = rulesOf(policy);
  if (rules.length === 0) return pass('G1', 'no must_not rule is set in the profile or the tenant policy');
  const lower = action.content.toLowerCase();
  const matched: string[] = [];
  const broken: string[] = [];
  for (const compiled of rules) {
    if ('problem' in compiled)
      broken.push(`${ruleName(compiled.rule)} cannot be checked (${compiled.problem})`);
    else if ('regex' in compiled ? compiled.regex.testLowerCase(lower) : lower.includes(compiled.substring))
      matched.push(ruleName(compiled.rule));
  }
  // A rule that cannot be checked counts as matching: a broken rule must not let everything through.
  if (matched.length > 0 || broken.length > 0) {
    const parts: string[] = [];
    if (matched.length > 0)
      parts.push(
        `must_not ${matched.length === 1 ? 'rule' : 'rules'} ${list(matched)} ${matched.length === 1 ? 'matches' : 'match'} the content`,
      );
    if (broken.length > 0) parts.push(`must_not ${list(broken)}, so it counts as a match until it is fixed`);
    return fail('G1', parts.join('; '));
  }
  return pass(
    'G1',
    `none of the ${plural(rules.length, 'must_not rule', 'must_not rules')} matches the content`,
  );
}

function ruleName(rule: MustNotRule): string {
  return `${rule.id} (${rule.source})`;
}

// ------------------------------------------------------------------------------------------------ G2

function g2(action: GovernedAction, policy: AgentPolicy, injection: InjectionAssessment): ActionGateResult {
  const threshold = formatNumber(policy.g2_injection_threshold);
  const score = formatNumber(injection.score);
  const signals = injection.signals.length === 0 ? 'no signal' : `signals: ${injection.signals.join(', ')}`;
  const asData = action.content_is_data
    ? '; the content was marked as data (from a channel, a tool or a fetched page), never as instructions'
    : '';
  return injection.score > policy.g2_injection_threshold
    ? fail('G2', `injection score ${score} is above the threshold ${threshold} (${signals})${asData}`)
    : pass('G2', `injection score ${score} is within the threshold ${threshold} (${signals})${asData}`);
}

// ------------------------------------------------------------------------------------------------ G3

function g3(policy: AgentPolicy, found: FindingCounts): ActionGateResult {
  const secretMax = policy.g3_max_secrets;
  const personalMax = policy.g3_max_personal_data;
  const secrets = `${plural(found.secret, 'secret', 'secrets')}${kindsOf(found, 'secret')}`;
  const personal = `${found.personal} personal data ${found.personal === 1 ? 'item' : 'items'}${kindsOf(found, 'personal')}`;
  const problems: string[] = [];
  if (found.secret > secretMax) problems.push(`${secrets} ${exceed(found.secret)} the maximum ${secretMax}`);
  if (personalMax !== null && found.personal > personalMax)
    problems.push(`${personal} ${exceed(found.personal)} the maximum ${personalMax}`);
  if (problems.length > 0)
    return fail('G3', `${problems.join('; ')} (kinds only: nothing found is repeated here)`);
  const personalLimit = personalMax === null ? 'no maximum' : `maximum ${personalMax}`;
  return pass('G3', `${secrets} (maximum ${secretMax}) and ${personal} (${personalLimit}) found`);
}

function exceed(count: number): string {
  return count === 1 ? 'exceeds' : 'exceed';
}

function kindsOf(found: FindingCounts, category: 'secret' | 'personal'): string {
  const kinds = Object.entries(found.kinds[category]).map(([kind, count]) => `${kind} ×${count}`);
  return kinds.length === 0 ? '' : ` (${kinds.join(', ')})`;
}

// ------------------------------------------------------------------------------------------------ G4

function g4(action: GovernedAction, policy: AgentPolicy): ActionGateResult {
  const allowed = policy.g4_allowed_evidence_classes;
  const evidenceClass = action.evidence_class as string;
  if (!(EVIDENCE_CLASSES as readonly string[]).includes(evidenceClass))
    return fail(
      'G4',
      `evidence class ${JSON.stringify(evidenceClass)} is not one of ${EVIDENCE_CLASSES.join(', ')}`,
    );
  return (allowed as readonly string[]).includes(evidenceClass)
    ? pass('G4', `evidence class ${evidenceClass} is allowed by the policy (${allowed.join(', ')})`)
    : fail('G4', `evidence class ${evidenceClass} is not allowed by the policy (${allowed.join(', ')})`);
}

// ------------------------------------------------------------------------------------------------ G5

function g5(action: GovernedAction, policy: AgentPolicy): ActionGateResult {
  const principal = action.principal;
  if (!(PRINCIPAL_KINDS as readonly string[]).includes(principal.kind) || principal.id.trim() === '')
    return fail(
      'G5',
      'no accountable principal (user, key, recipe, schedule or delegation) is bound to the action',
    );
  const who = `${principal.kind} ${principal.id}`;
  const problems: string[] = [];
  const checked: string[] = [`${who} is bound`];
  const required = action.required_scope;
  if (required !== undefined) {
    if (principal.scopes === undefined) checked.push(`holds every scope of the agent, ${required} included`);
    else if (scopeCovers(principal.scopes, required)) checked.push(`holds the scope ${required}`);
    else
      problems.push(
        `${who} lacks the scope ${required} (it holds ${principal.scopes.length === 0 ? 'none' : principal.scopes.join(', ')})`,
      );
  }
  if (action.within_budget === false) problems.push(`${who} has spent its budget`);
  if (action.tool_class === 'destructive' && policy.g5_destructive_requires_approval) {
    if (action.approved_by_human === true) checked.push('a human approved the destructive tool');
    else problems.push('a destructive tool needs a human approval and has none');
  }
  return problems.length > 0 ? fail('G5', problems.join('; ')) : pass('G5', checked.join(', '));
}

/**
 * Whether granted scopes cover a required one: the same scope, `*`, a parent (`memory` covers
 * `memory:read`), or a wildcard child (`memory:*` covers `memory:write`).
 */
export function scopeCovers(granted: readonly string[], required: string): boolean {
  for (const scope of granted) {
    if (scope === required || scope === '*') return true;
    const parent = scope.endsWith(':*') ? scope.slice(0, -2) : scope;
    if (required.startsWith(`${parent}:`)) return true;
  }
  return false;
}

// ------------------------------------------------------------------------------------------- wording

function pass(gate: GateName, reason: string): ActionGateResult {
  return { gate, passed: true, reason };
}

function fail(gate: GateName, reason: string): ActionGateResult {
  return { gate, passed: false, reason };
}

function plural(count: number, one: string, many: string): string {
  return `${count} ${count === 1 ? one : many}`;
}

function list(items: readonly string[]): string {
  if (items.length <= 1) return items.join('');
  return `${items.slice(0, -1).join(', ')} and ${items[items.length - 1]}`;
}
