/**
 * G2's first heuristic: how much a text looks like a prompt injection or a jailbreak, as a score in
 * [0, 1] from weighted signals, and which signals fired (their names only, never the text).
 *
 * Each signal is a family of phrasings of one technique (overriding earlier instructions, hijacking the
 * model's role, a jailbreak persona, asking to leave the rules behind, suppressing refusals, reading out
 * the system prompt, injecting chat-template delimiters, hiding text, coercing tools, …). The score
 * combines the weights of the signals found as independent pieces of evidence (a noisy OR):
 * `score = 1 − Π (1 − weight)`. A text passes G2 while its score is at most the threshold (0.5 by
 * default): one strong signal (weight above 0.5) fails it alone; the weaker ones (a role-play request,
 * a hypothetical frame) need company. Text is matched after folding what hides words from a pattern:
 * Unicode compatibility forms, invisible characters, look-alike letters of other scripts; text hidden
 * in base64, Morse code or leetspeak is decoded and scanned as well.
 *
 * It is a heuristic: it does not understand text, and a determined attacker can phrase around it. It
 * is tuned on the kinds of attack (published jailbreak prompts) against ordinary conversation, so a
 * single word such as "prompt" or "ChatGPT" never blocks on its own.
 */

export const DEFAULT_INJECTION_THRESHOLD = 0.5;

export type InjectionSignalName =
  | 'instruction_override'
  | 'system_prompt_exfiltration'
  | 'jailbreak_persona'
  | 'delimiter_injection'
  | 'policy_evasion'
  | 'role_hijack'
  | 'data_exfiltration'
  | 'tool_coercion'
  | 'refusal_suppression'
  | 'authority_impersonation'
  | 'obfuscation'
  | 'persona_persistence'
  | 'output_format_hijack'
  | 'prompt_template'
  | 'hypothetical_framing'
  | 'model_address';

export interface InjectionSignal {
  name: InjectionSignalName;
  weight: number;
  /** What the signal looks for, for the governance configuration a user reads. */
  description: string;
}

interface SignalSpec extends InjectionSignal {
  /** Matched against the folded, lower-cased text; any match fires the signal. */
  patterns: readonly RegExp[];
  /** Matched against the folded text with its case kept (an upper-case `DAN` is not the name Dan). */
  casedPatterns?: readonly RegExp[];
}

/** Words that name the rules a model is given. */
const RULES =
  '(?:instructions?|rules|prompts?|directives?|guidelines|programming|constraints|restrictions|guardrails|conversations?|context|messages?|training|polic(?:y|ies)|commands?|orders|settings)';
const EARLIER =
  '(?:previous|prior|above|earlier|preceding|initial|original|old|existing|former|system|default|all|any|every|the|your|my|of|these|those|\\s)*';
/** What a jailbreak asks the model to leave behind. */
const LIMITS =
  '(?:restrictions?|filters?|filtering|censorship|guidelines|limits|limitations|boundaries|constraints|principles|morals|morality|ethics|rules|polic(?:y|ies)|safeguards|guardrails|confines|laws|legality)';
/** Adjectives of the personas jailbreaks invent. */
const UNBOUND =
  '(?:unfiltered|unfiltred|uncensored|unrestricted|unlimited|amoral|unethical|immoral|unbound|unchained|lawless|rogue|unhinged|limitless)';
/** Ways of saying "the answer". */
const ANSWERS = '(?:responses?|repl(?:y|ies)|answers?|messages?|outputs?)';
/** Who a text addresses when it addresses the model. */
const YOU = '(?:you|assistant|the (?:ai|model|bot|assistant))';

/**
 * The signals. Weights are this service's judgement of how rarely each technique appears in ordinary
 * use: reading out the system prompt or overriding instructions is almost never benign; asking for a
 * role-play or a hypothetical often is.
 */
const SIGNAL_TABLE: readonly SignalSpec[] = [
  {
    name: 'instruction_override',
    weight: 0.6,
    description: 'asks to ignore, forget or override earlier instructions, rules or context',
    patterns: [
      new RegExp(
        `\\b(?:ignore|disregard|forget|override|overwrite|bypass|skip|drop|abandon|discard|delete|clear)\\b${EARLIER}${RULES}\\b`,
      ),
      /\bforget (?:everything|all|anything)\b.{0,40}\b(?:before|above|previous|earlier|know|learned|told|said)\b/,
      /\b(?:new|updated|real|actual|true) (?:instructions|rules|system prompt|directives?|programming|purpose)\s*(?::|are\b|is\b|says?\b|follows?\b)/,
      /\b(?:do not|don't|no longer) (?:follow|obey|adhere to|listen to)\b.{0,30}\b(?:instructions|rules|guidelines|programming)\b/,
    ],
  },
  {
    name: 'system_prompt_exfiltration',
    weight: 0.6,
    description: 'asks to reveal, repeat or print the system prompt or hidden instructions',
    patterns: [
      /\b(?:reveal|show|print|repeat|output|display|leak|dump|recite|echo|write out|spell out|tell me|give me|share|what (?:is|are|was|were))\b.{0,30}\b(?:system (?:prompt|message|instructions)|(?:hidden|initial|original|secret|internal|developer|pre-?) ?(?:instructions|prompt|rules|message)|your (?:instructions|prompt|rules|guidelines|configuration))\b/,
      /\b(?:repeat|print|output|recite) (?:the |all )?(?:words|text|everything|lines?) (?:above|before|preceding)\b/,
      /\bwhat (?:was|is) written (?:at the (?:beginning|start|top)|above)\b/,
    ],
  },
  {
    name: 'jailbreak_persona',
    weight: 0.6,
    description:
      'invokes a known jailbreak persona or mode (DAN, developer mode, an unfiltered or amoral AI)',
    patterns: [
      /\bdo anything now\b/,
      /\b(?:developer|dev|god|debug(?:ging)?|jailbreak|jailbroken|unrestricted|unfiltered|uncensored|evil|opposite|chaos|sudo)[ _-]?mode\b/,
      /\bjailbr(?:eak|oken|eaking)\b/,
      new RegExp(
        `\\b${UNBOUND}\\b[\\w\\s,-]{0,30}\\b(?:ai|a\\.i\\.|model|assistant|chat ?bot|bot|language model|llm|character|persona|entity|version|machine|intelligence|system)s?\\b`,
      ),
      new RegExp(`\\b${UNBOUND}\\s*,\\s*(?:\\w+\\s*,\\s*){0,3}${UNBOUND}\\b`),
      /\b(?:dan|stan|dude|aim|ucar|antigpt|devmode)\b.{0,40}\b(?:stands for|which stands)\b/,
    ],
    casedPatterns: [/\bDAN\b/],
  },
  {
    name: 'delimiter_injection',
    weight: 0.55,
    description:
      'injects chat-template or role delimiters (</system>, <|im_start|>, [INST], ### instruction) or fakes the end of a conversation',
    patterns: [
      /<\/?\s*(?:system|assistant|user|instructions?|sys|admin|developer)\s*>/,
      /<\|\s*(?:im_start|im_end|system|user|assistant|endoftext|eot_id|start_header_id|end_header_id|begin_of_text)\s*\|>/,
      /\[\/?inst\]|<<\/?sys>>/,
      /(?:^|\n)\s*#{2,}\s*(?:new )?(?:instructions?|system|admin|developer|override)\b/,
      /\b(?:begin|start|end) (?:of )?(?:system|admin|developer) (?:prompt|instructions|message|override)\b/,
      /(?:^|\n)\s*(?:system|developer)\s*(?:prompt|message|override)?\s*:\s*(?:you|ignore|new|from now)/,
      /\[\s*(?:user|system|admin|developer|assistant)\b[^\]]{0,60}\]/,
      /<\|\s*[\w ]{1,30}:/,
      /\b(?:user|conversation|chat|session|message) (?:has )?(?:left|ended|terminated|termination|closed)\b.{0,40}\b(?:system|admin|developer|debug)/,
    ],
  },
  {
    name: 'policy_evasion',
    weight: 0.45,
    description: 'asks the model to act without its rules, policies, filters or ethics',
    patterns: [
      new RegExp(
        `\\b(?:ignore|bypass|break|violate|disregard|circumvent|evade|escape|broken free (?:of|from)|freed? (?:of|from)|not bound by|(?:does|do|will|need|has|have)(?: not|n't)(?: have to)? (?:abide by|comply with|follow|adhere to|obey|care(?: about| for)?|respect|have any))\\b[\\w\\s,'-]{0,40}\\b${LIMITS}\\b`,
      ),
      new RegExp(
        `\\b(?:no|without(?: any)?|zero|lacks?|devoid of|free of)\\s(?:[^\\s]{1,12}\\s)?(?:or [^\\s]{1,12}\\s)?${LIMITS}\\b`,
      ),
      new RegExp(
        `\\bwithout (?:any )?(?:concern|regard|care|consideration)s? (?:for|of|about)\\b.{0,20}\\b${LIMITS}\\b`,
      ),
      /\b(?:openai|content|usage|safety|community)(?:'s)? (?:polic(?:y|ies)|guidelines|rules|filters?)\b/,
      /\bregardless of (?:how |whether |its |the |any )?(?:it is |it's )?(?:immoral|unethical|illegal|dangerous|harmful|offensive|inappropriate|ethic|moral|legal)/,
      /\b(?:immoral|unethical|illegal|harmful|offensive|explicit)\s*(?:,|or|and)\s*(?:immoral|unethical|illegal|harmful|offensive|explicit)\b/,
      new RegExp(`\\b${UNBOUND}\\b`),
    ],
  },
  {
    name: 'role_hijack',
    weight: 0.45,
    description:
      'tells the model it is now someone or something else (you are now…, act as…, pretend to be…)',
    patterns: [
      /(?<!\b(?:where|how|what|who|that|which|if|whether) )\byou are now (?!\w+ing\b)(?:a|an|the|my|going|in|called|named|known|["'[(<]|\w+(?:gpt|bot|ai)\b)/,
      // "You are now X." opening a sentence assigns a role; "where you are now" does not.
      /(?:^|[.!?:;>|]\s*)you are now\b/,
      /\byou (?:will|shall|must|are going to|are to) (?:now )?(?:become|act|play the (?:role|part)|pretend|roleplay|role-play|simulate|serve as|take on)\b/,
      /\balter[ -]?ego\b/,
      /\byou are (?:no longer|going to (?:be|act|pretend|play|become|simulate|roleplay|role-play|imitate))\b/,
      /\bfrom (?:now on|this (?:moment|point)(?: on(?:wards?)?)?|here on),? (?:you|your|act|respond|reply|answer|pretend|behave|always|every|only)\b/,
      new RegExp(
        `\\b${YOU} (?:will|shall|must|should|are to|need to|now)? ?(?:act|acts|behave|behaves|function|functions|respond|speak|answer|talk|reply) (?:as|like) (?:if you were |though you (?:are|were) )?(?:a|an|the|my)\\b`,
      ),
      /(?:^|[.!?:;,]\s*|\b(?:please|now|then|and|also|will|must|should|shall|to)\s)act (?:as|like)\b/,
      /\b(?:i (?:want|need|would like)|i'd like) you to (?:act|be|pretend|roleplay|role-play|play|become|simulate|behave|respond|impersonate|imitate)\b/,
      /\bpretend (?:to be|you are|you're|that you(?:'re| are)|to have)\b/,
      /\b(?:immerse|embody|assume|adopt|take on|step into)\b.{0,20}\b(?:role|persona|character|identity)\b/,
      /\brole-?play(?:ing)? as\b|\bplay the (?:role|part) of\b|\bpersonify\b|\bimpersonate\b/,
      /\b(?:transform|turn) (?:yourself )?into\b|\bfunction in the capacity of\b/,
      /\bimitate\b.{0,30}\b(?:behaviou?r|manner|personality|style|voice)/,
      /\b(?:respond|reply|answer|speak|talk|write) (?:only )?(?:as|like) (?:such|him|her|them|a|an|the|my|["'[])/,
      /\b(?:you are|you're|simulate|emulate) (?:a|an)\b[\w\s-]{0,40}\b(?:ai|model|chat ?bot|assistant|language model|terminal|virtual machine|simulator|person|character|entity)\b(?: (?:called|named|that|who|which|known as))?/,
      /\byou(?:'re| are)\b[\w\s-]{0,40}\b(?:named|called|known as)\b/,
    ],
  },
  {
    name: 'data_exfiltration',
    weight: 0.6,
    description:
      'asks to send data, memory or credentials to an outside address or URL, or to run a download or a destructive shell command',
    patterns: [
      /\b(?:send|forward|post|upload|email|e-mail|transfer|exfiltrate|leak|copy)\b.{0,20}\b(?:all|every|the|your|my|any)?\s?(?:data|e-?mails?|files?|memor(?:y|ies)|secrets?|credentials?|passwords?|api[ _-]?keys?|tokens?|conversation|chat history|history|contacts|documents?|messages?)\b.{0,20}\b(?:to|at) (?:https?:\/\/|[\w.+-]+@[\w-]+\.|this (?:url|address|endpoint|server|webhook))/,
      /\b(?:curl|wget|invoke-webrequest)\s+(?:-\w+\s+)*https?:\/\//,
      /\brm\s+-rf\s+[/~]/,
    ],
  },
  {
    name: 'tool_coercion',
    weight: 0.45,
    description: 'pushes the agent to run tools without asking, silently, or without telling the user',
    patterns: [
      /\b(?:call|invoke|execute|run|use|trigger|fire)\b.{0,30}\b(?:tool|function|command|api|plugin|action)s?\b.{0,40}\b(?:without (?:asking|confirm|permission|approval|telling|notify)|silently|secretly|immediately|do not (?:ask|tell|inform|mention))/,
      /\b(?:without|don't|do not|never) (?:asking|ask|tell|telling|inform|informing|notify|notifying|alerting) (?:the )?(?:user|owner|human|anyone)\b/,
    ],
  },
  {
    name: 'refusal_suppression',
    weight: 0.4,
    description: 'forbids refusals, apologies, warnings or disclaimers',
    patterns: [
      /(?:\bnever|\bnot|n't|\bcannot|\bmust not|\bwill not|\bshall not|\bshould not)\s(?:ever )?(?:\w+ing (?:or|and) )?(?:refus|declin|reject|say no|apologi[sz]|warn|censor|filter|avoid)/,
      /(?:\bnever|\bnot|n't|\bwill not|\bmust not|\bshould not|\bwithout)\s(?:include|add|give|provide|any|adding|including|giving)\s?(?:any )?(?:warnings?|disclaimers?|apolog(?:y|ies)|caveats|moraliz\w*|lectures?|reminders?)\b/,
      /\bwithout (?:any )?(?:refus\w*|hesitat\w*|warn\w*|disclaimers?|censor\w*|apolog\w*|moraliz\w*)/,
      /\bnone of your (?:responses|replies|answers|messages) (?:should|will|can|may)\b/,
      /(?:\bnever|\bnot|n't) (?:tell|inform|remind) (?:me|the user|anyone) (?:that )?(?:you|it) (?:can't|cannot|are not able|aren't able|are unable)/,
      /\bphrases? (?:like|such as) ["“']?i(?:'m| am) sorry/,
      /\b(?:always|must) (?:answer|respond|reply|comply|provide an answer)\b.{0,30}\b(?:no matter|regardless|even if)\b/,
      /\byou (?:must|need to|have to|will|shall) (?:always |fully )?comply\b/,
    ],
  },
  {
    name: 'authority_impersonation',
    weight: 0.35,
    description: "claims to speak for the model's maker or an administrator, or to grant elevated access",
    patterns: [
      /\b(?:i am|i'm|this is|we are|as)\b.{0,20}\b(?:developer|programmer|engineer|employee|admin(?:istrator)?|staff|creator|owner|ceo|researcher)s?\b.{0,20}\b(?:at|of|from|for|with)\b.{0,10}\b(?:openai|anthropic|google|deepmind|meta|microsoft|your (?:creators?|developers?|company|makers?))\b/,
      /\b(?:by|from) (?:an? |the )?(?:openai|anthropic|google|microsoft) (?:employee|developer|engineer|admin|staff|team)\b/,
      /\b(?:user ?class|access level|privileges?|permissions?|clearance)\W{0,5}(?:admin|root|developer|superuser|unlimited|god)\b/,
      /\b(?:admin|root|sudo|superuser|developer|god) (?:access|privileges?|override|rights) (?:granted|enabled|activated|confirmed)\b/,
    ],
  },
  {
    name: 'obfuscation',
    weight: 0.35,
    description:
      'hides text: invisible or tag characters, look-alike letters of another script, base64 that decodes to text, Morse code, leetspeak',
    // Found in code: `fold` (invisible characters, mixed scripts), `hiddenTexts` (base64, Morse, leetspeak).
    patterns: [],
  },
  {
    name: 'persona_persistence',
    weight: 0.25,
    description: 'insists the model keep a persona or mode (stay in character, if you break character…)',
    patterns: [
      /\b(?:stay|remain|keep|staying)\b.{0,10}\bin (?:character|role|persona|(?:this|that|\w+) mode)\b/,
      /\b(?:break|breaking|broke|drop|stray from|fall out of|leave)\b.{0,10}\b(?:character|role|persona)\b/,
      /\b(?:until|unless) i (?:say|tell you|type|write)\b.{0,20}\b(?:otherwise|stop|to stop|to return|back)\b/,
      /\bif (?:i|you) (?:say|type|write|send|use) ["“'/]/,
      /\bmode\s*(?:\+[^.]{0,30})?\s*(?:is )?(?:enabled|activated|unlocked|engaged)\b/,
    ],
  },
  {
    name: 'output_format_hijack',
    weight: 0.25,
    description: 'dictates a dual or tagged answer format, or how every reply must begin',
    patterns: [
      new RegExp(
        `\\b(?:two|2|dual|both) (?:different |separate |distinct )?(?:${ANSWERS}|paragraphs|manners|ways|styles|personalities|versions)\\b`,
      ),
      new RegExp(
        `\\b(?:begin|start|prefix|precede|end|complete)\\b.{0,20}\\b(?:each|every|all|your|the) (?:of your )?${ANSWERS}\\b.{0,10}\\b(?:with|as|by)\\b`,
      ),
      new RegExp(
        `\\b${YOU} (?:will|shall|must) (?:always |only |never )+(?:respond|answer|reply|say|write|output|talk)\\b`,
      ),
      /\b(?:if you understand|to confirm)\b.{0,20}\b(?:say|reply|respond|answer|type|write)\b|\btell me (?:that )?you understand\b/,
      /\b(?:end|begin|start|finish|complete) (?:it |each |every |all |your |the )?(?:\w+ )?with ["“«']/,
      /(?:^|[.!?,;:]\s*|\b(?:and|then|just|only|always|must|will|should)\s)(?:say|reply|respond|answer)(?: with| only)? ["“«]/,
      new RegExp(`\\bevery ${ANSWERS}\\b.{0,40}\\bmust\\b`),
      /\b(?:do not|don'?t|never|without) (?:add|include|write|give|provide|adding|including) (?:any )?(?:commentary|explanations?|notes|translations?)\b/,
      /\bin (?:the following|this|exactly this) format\b/,
      /\[(?:🔓|🔒|jailbreak|jailbroken|classic|normal|dan|developer mode|gpt|chatgpt)[^\]]{0,30}\]\s*:?/,
      /(?:^|\s)\W{0,3}(?:chat ?gpt|gpt|dan|normal|classic|jailbreak)\s*(?:[^\w\s]{0,3}\s*)?:/,
    ],
  },
  {
    name: 'prompt_template',
    weight: 0.25,
    description:
      'carries the placeholders of a shared prompt template ([insert prompt here], [INPUT], {prompt})',
    patterns: [
      /[[{<(]\s*(?:insert |type |put |enter |add |write )?(?:your |the |a |my )?(?:own )?(?:prompt|question|request|query|input|role|task|topic|text)(?: here)?\s*[\]}>)]/,
      /\b(?:insert|type|put|enter) (?:your |the )?(?:prompt|question|request|query) here\b/,
      /\b(?:role|persona|rules|prefix|job|personality|character|mode|output|assistant)\s*=\s*[[\w"(]/,
    ],
  },
  {
    name: 'hypothetical_framing',
    weight: 0.15,
    description: 'frames the request as hypothetical, fictional or without consequences',
    patterns: [
      /\bhypothetical(?:ly)?\b/,
      /\b(?:fictional|imaginary|fictitious|alternate|parallel|fake) (?:world|universe|reality|scenario|setting|story)\b/,
      /\b(?:no|without)\s(?:real[- ]world\s)?consequences\b/,
      /\bfor (?:purely )?(?:educational|research|academic|testing) purposes\b/,
      /\b(?:let's|let us|we will|we're going to|i want to) play a (?:\w+ )?(?:game|role-?play(?:ing)?(?: game)?)\b/,
    ],
  },
  {
    name: 'model_address',
    weight: 0.15,
    description: 'speaks to the model about itself as an AI (its maker, being a language model)',
    patterns: [
      /\b(?:chat ?gpt|openai|gpt-?[345](?:\.5)?|bard|claude|gemini|llama)\b/,
      /\b(?:as an ai|ai language model|large language model|your (?:creators|developers|programmers|knowledge cut-?off|data cut-?off))\b/,
    ],
  },
];

/** Strongest first: the order signals are reported in. */
const SIGNALS = [...SIGNAL_TABLE].sort((a, b) => b.weight - a.weight);

/** The signals with their weights and descriptions (for the governance configuration a user reads). */
export const INJECTION_SIGNALS: readonly InjectionSignal[] = SIGNALS.map(({ name, weight, description }) => ({
  name,
  weight,
  description,
}));

export interface InjectionAssessment {
  /** 1 − Π(1 − weight) over the signals found, rounded to 3 decimals. */
  score: number;
  /** The signals found, strongest first; names only. */
  signals: InjectionSignalName[];
}

export function assessInjection(text: string): InjectionAssessment {
  const folded = fold(text);
  const found = new Set<InjectionSignalName>();
  if (folded.hidden) found.add('obfuscation');
  scan(folded, found);
  // Text hidden in an encoding is read as well: the encoding is a signal, and so is what it says.
  for (const decoded of hiddenTexts(text, folded.lower)) {
    found.add('obfuscation');
    scan(fold(decoded), found);
  }
  let keep = 1;
  const signals: InjectionSignalName[] = [];
  for (const signal of SIGNALS) {
    if (!found.has(signal.name)) continue;
    signals.push(signal.name);
    keep *= 1 - signal.weight;
  }
  return { score: Math.round((1 - keep) * 1000) / 1000, signals };
}

function scan(folded: Folded, found: Set<InjectionSignalName>): void {
  for (const signal of SIGNALS) {
    if (found.has(signal.name)) continue;
    if (
      signal.patterns.some((pattern) => pattern.test(folded.lower)) ||
      signal.casedPatterns?.some((pattern) => pattern.test(folded.cased))
    )
      found.add(signal.name);
  }
}

// ------------------------------------------------------------------------------------------- folding

/**
 * Characters that show nothing: zero-width spaces and joiners, the word joiner and invisible
 * operators, bidirectional controls, soft hyphens, and the Unicode tag characters (U+E0000 block)
 * that can spell a whole hidden sentence. They are removed before matching.
 */
const INVISIBLE_SOURCE =
  '[\\u00ad\\u180e\\u200b-\\u200f\\u202a-\\u202e\\u2060-\\u2064\\u2066-\\u2069\\ufeff]|\\udb40[\\udc00-\\udc7f]';
const INVISIBLE = new RegExp(INVISIBLE_SOURCE);
const INVISIBLE_ALL = new RegExp(INVISIBLE_SOURCE, 'g');
/**
 * The same used to hide: always for tag characters, bidirectional overrides, zero-width spaces and
 * word joiners; joiners, direction marks and soft hyphens only between two Latin letters (emoji
 * sequences, Persian and Indic scripts use them legitimately).
 */
const HIDING =
  /[\u180e\u200b\u202a-\u202e\u2060-\u2064\u2066-\u2069\ufeff]|\udb40[\udc00-\udc7f]|[A-Za-z][\u00ad\u200c-\u200f]+[A-Za-z]/;

/**
 * Four or more full-width Latin letters (ＩＧＮＯＲＥ) or mathematical alphanumerics (𝐢𝐠𝐧𝐨𝐫𝐞) in a row:
 * letters styled so that a filter reading ASCII misses them. NFKC folds them back for the patterns.
 */
const STYLED_LETTERS = /(?:[\uff21-\uff3a\uff41-\uff5a]|\ud835[\udc00-\udfff]){4}/;

/** Cyrillic and Greek letters that look like Latin ones, folded to the Latin letter they imitate. */
const LOOKALIKES: Readonly<Record<string, string>> = {
  а: 'a',
  в: 'b',
  е: 'e',
  ё: 'e',
  к: 'k',
  м: 'm',
  н: 'h',
  о: 'o',
  р: 'p',
  с: 'c',
  т: 't',
  у: 'y',
  х: 'x',
  і: 'i',
  ї: 'i',
  ј: 'j',
  ѕ: 's',
  ԁ: 'd',
  ԛ: 'q',
  ԝ: 'w',
  һ: 'h',
  ӏ: 'l',
  α: 'a',
  β: 'b',
  ε: 'e',
  η: 'n',
  ι: 'i',
  κ: 'k',
  ν: 'v',
  ο: 'o',
  ρ: 'p',
  τ: 't',
  υ: 'u',
  χ: 'x',
  γ: 'y',
};
/** Only inside a Latin word: Cyrillic or Greek text of its own is left alone. */
const LOOKALIKE = new RegExp(
  `(?<=[a-z])[${Object.keys(LOOKALIKES).join('')}]|[${Object.keys(LOOKALIKES).join('')}](?=[a-z])`,
  'i',
);
const LOOKALIKE_ALL = new RegExp(LOOKALIKE.source, 'gi');
/** A word mixing Latin letters with Cyrillic or Greek ones: how look-alike letters hide a word. */
const MIXED_SCRIPT = /[a-z][\u0370-\u03ff\u0400-\u04ff]|[\u0370-\u03ff\u0400-\u04ff][a-z]/i;

interface Folded {
  /** What most patterns read: lower case. */
  lower: string;
  /** The same with its case kept. */
  cased: string;
  /** Whether anything was hidden: an invisible character inside a word, or a word mixing scripts. */
  hidden: boolean;
}

/**
 * The text as the patterns read it: compatibility forms folded (full-width letters, ligatures),
 * invisible characters removed, look-alike letters of other scripts folded to Latin, curly quotes
 * straightened, runs of blanks as one space.
 */
function fold(text: string): Folded {
  let out = text.normalize('NFKC');
  // A byte-order mark at the start is an encoding artefact, not a hiding place.
  if (out.charCodeAt(0) === 0xfeff) out = out.slice(1);
  let hidden = STYLED_LETTERS.test(text) || HIDING.test(out) || MIXED_SCRIPT.test(out);
  if (INVISIBLE.test(out)) out = out.replace(INVISIBLE_ALL, '');
  if (LOOKALIKE.test(out)) {
    hidden = true;
    out = out.replace(LOOKALIKE_ALL, (char) => LOOKALIKES[char.toLowerCase()] ?? char);
  }
  out = out
    .replace(/[‘’ʼ′]/g, "'")
    .replace(/[“”″]/g, '"')
    .replace(/[ \t\u00a0]+/g, ' ');
  return { lower: out.toLowerCase(), cased: out, hidden };
}

/** What the text hides in base64, Morse code or leetspeak, decoded (a few at most, so hostile input costs little). */
function hiddenTexts(text: string, lower: string): string[] {
  const out = decodedBase64(text);
  const morse = decodedMorse(text);
  if (morse !== null) out.push(morse);
  if (isLeet(lower)) out.push(lower.replace(/[013457859]/g, (digit) => LEET_LETTERS[digit]!));
  return out;
}

/** A word interleaving letters and digits (h0w, m4k3, 51mp13), unlike ordinals, units and model numbers (2nd, 5km, mp3). */
const LEET_WORD = /\b[a-z0-9]*(?:[a-z]\d+[a-z]|\d[a-z]+\d)[a-z0-9]*\b/g;
const LEET_WORDS = 4;
const LEET_LETTERS: Readonly<Record<string, string>> = {
  '0': 'o',
  '1': 'i',
  '3': 'e',
  '4': 'a',
  '5': 's',
  '7': 't',
  '8': 'b',
  '9': 'g',
};

function isLeet(lower: string): boolean {
  let count = 0;
  LEET_WORD.lastIndex = 0;
  while (LEET_WORD.exec(lower) !== null) if (++count >= LEET_WORDS) return true;
  return false;
}

/** Twelve or more Morse letters in a row (dots and dashes separated by spaces or slashes). */
const MORSE_RUN = /(?:[.-]{1,7}(?:[ \t]+|\s*\/\s*)){11,}[.-]{1,7}/;
const MORSE: Readonly<Record<string, string>> = {
  '.-': 'a',
  '-...': 'b',
  '-.-.': 'c',
  '-..': 'd',
  '.': 'e',
  '..-.': 'f',
  '--.': 'g',
  '....': 'h',
  '..': 'i',
  '.---': 'j',
  '-.-': 'k',
  '.-..': 'l',
  '--': 'm',
  '-.': 'n',
  '---': 'o',
  '.--.': 'p',
  '--.-': 'q',
  '.-.': 'r',
  '...': 's',
  '-': 't',
  '..-': 'u',
  '...-': 'v',
  '.--': 'w',
  '-..-': 'x',
  '-.--': 'y',
  '--..': 'z',
  '-----': '0',
  '.----': '1',
  '..---': '2',
  '...--': '3',
  '....-': '4',
  '.....': '5',
  '-....': '6',
  '--...': '7',
  '---..': '8',
  '----.': '9',
  '.-.-.-': '.',
  '--..--': ',',
  '..--..': '?',
  '-.-.--': '!',
  '---...': ':',
  '.----.': "'",
  '-..-.': '/',
};

/** The first Morse run decoded (a slash or two spaces between words), or null. */
function decodedMorse(text: string): string | null {
  const run = MORSE_RUN.exec(text)?.[0];
  if (run === undefined) return null;
  return run
    .split(/\s*\/\s*|\s{2,}/)
    .map((word) =>
      word
        .split(/\s+/)
        .map((code) => MORSE[code] ?? '')
        .join(''),
    )
    .join(' ');
}

/** Runs of base64 long enough to hide a sentence. */
const BASE64_RUN = /(?<![A-Za-z0-9+/=_-])[A-Za-z0-9+/]{24,}={0,2}(?![A-Za-z0-9+/=_-])/g;
const MAX_DECODED = 4;

/** The base64 runs that decode to readable text. */
function decodedBase64(text: string): string[] {
  const out: string[] = [];
  BASE64_RUN.lastIndex = 0;
  for (let match = BASE64_RUN.exec(text); match !== null; match = BASE64_RUN.exec(text)) {
    const run = match[0];
    // Words and identifiers are letters only or lack a mix of cases and digits; base64 of text has both.
    if (!/[A-Z]/.test(run) || !/[a-z]/.test(run) || !/[0-9+/]/.test(run)) continue;
    const decoded = Buffer.from(run, 'base64').toString('utf8');
    if (readable(decoded)) out.push(decoded);
    if (out.length >= MAX_DECODED) break;
  }
  return out;
}

/** Mostly printable ASCII with several words: text rather than bytes. */
function readable(decoded: string): boolean {
  if (decoded.length < 12) return false;
  let printable = 0;
  for (let i = 0; i < decoded.length; i++) {
    const code = decoded.charCodeAt(i);
    if ((code >= 32 && code < 127) || code === 10 || code === 13 || code === 9) printable += 1;
  }
  return printable / decoded.length > 0.95 && /[a-z]{2,} [a-z]{2,} [a-z]{2,}/i.test(decoded);
}
