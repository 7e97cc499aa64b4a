/**
 * The injection screen: text that reads as instructions to a model rather than as a fact
 * about a user must never be stored, because memory is later put in front of a model and
 * would become a prompt-injection channel. A curated pattern list (English and Chinese), run
 * over normalised text; each finding names the rule, never echoes the text.
 */

/** One curated rule: what the text looks like, and its pattern over normalised text. */
interface InjectionRule {
  reason: string;
  pattern: RegExp;
}

const VERBS_IGNORE = '(?:ignore|disregard|forget|skip|override|bypass|drop|discard)';
const EARLIER =
  '(?:previous|prior|above|earlier|preceding|foregoing|all|any|the|your|these|those|system|developer)';
const INSTRUCTIONS =
  '(?:instructions?|prompts?|rules|directions|directives|guidelines|guardrails|commands?|orders|constraints|policies|context|messages)';

const RULES: readonly InjectionRule[] = [
  {
    reason: 'instruction override',
    pattern: new RegExp(
      `\\b${VERBS_IGNORE}\\b(?:\\W+\\w+){0,4}?\\W+${EARLIER}\\b(?:\\W+\\w+){0,3}?\\W+${INSTRUCTIONS}\\b`,
    ),
  },
  {
    reason: 'instruction override',
    pattern: /\bforget (?:everything|all)(?: (?:you|that|above|before|previous\w*))?\b/,
  },
  { reason: 'instruction override', pattern: /\bnew (?:instructions|rules|system prompt)\s*:/ },
  { reason: 'role reassignment', pattern: /\byou are now\b/ },
  {
    reason: 'role reassignment',
    pattern: /\bfrom now on,? (?:you|the assistant) (?:are|will|must|should|shall)\b/,
  },
  {
    reason: 'role reassignment',
    pattern: /\b(?:act|acting|behave) as (?:if|though|an?|the|my|your|dan)\b/,
  },
  { reason: 'role reassignment', pattern: /\bpretend (?:to be|you are|that you)\b/ },
  { reason: 'role reassignment', pattern: /\broleplay as\b/ },
  { reason: 'system prompt access', pattern: /\bsystem prompt\b/ },
  {
    reason: 'system prompt access',
    pattern:
      /\b(?:reveal|print|show|repeat|output|leak|dump)\b(?:\W+\w+){0,3}?\W+(?:hidden|initial|developer|original) (?:prompt|instructions|message)/,
  },
  {
    reason: 'concealment from the user',
    pattern:
      /\b(?:do not|don't|never) (?:tell|inform|show|mention to|reveal to|let) (?:the |this )?user\b/,
  },
  {
    reason: 'concealment from the user',
    pattern: /\bwithout (?:telling|informing|asking) the user\b/,
  },
  { reason: 'concealment from the user', pattern: /\bkeep (?:this|it) (?:secret|hidden) from\b/ },
  {
    reason: 'role tag spoofing',
    pattern:
      /<\|(?:im_start|im_end|im_sep|system|user|assistant|endoftext|eot_id|start_header_id|end_header_id)\|>/,
  },
  {
    reason: 'role tag spoofing',
    pattern: /<\/?(?:system|assistant|developer|instructions?|sys)\s*>/,
  },
  { reason: 'role tag spoofing', pattern: /\[\/?(?:inst|sys)\]|<<\/?sys>>/ },
  { reason: 'role tag spoofing', pattern: /(?:^|\n)\s*#*\s*(?:system|assistant|developer)\s*:/ },
  {
    reason: 'tool call spoofing',
    pattern: /<\/?(?:tool_call|tool_use|function_call|function_calls|tool_result|invoke)\b/,
  },
  { reason: 'tool call spoofing', pattern: /"(?:tool_calls|function_call|tool_use)"\s*:/ },
  { reason: 'tool call spoofing', pattern: /\[tool_calls\]|<\|tool_call\|>|<function=/ },
  {
    reason: 'instruction override',
    pattern:
      /(?:忽略|无视|忘记|忘掉|不要理会|不要管|跳过|绕过)[^。\n]{0,12}(?:之前|以上|上面|前面|先前|此前|所有|全部|一切|原有|系统)[^。\n]{0,12}(?:指令|指示|提示词?|规则|要求|设定|命令|约束)/u,
  },
  { reason: 'role reassignment', pattern: /你现在(?:是|扮演|作为)|从现在(?:开始|起)[，,]?你/u },
  { reason: 'role reassignment', pattern: /(?:你来?扮演|请扮演|扮演一[个名位]|假装你是|假装成)/u },
  {
    reason: 'system prompt access',
    pattern: /系统提示(?:词)?|(?:泄露|输出|显示|重复)[^。\n]{0,6}(?:提示词|系统指令)/u,
  },
  { reason: 'concealment from the user', pattern: /(?:不要|别|切勿)(?:告诉|通知|让)用户/u },
];

/** Zero-width and bidi control characters that can hide a phrase from a naive match. */
const INVISIBLE = /[\u200b-\u200f\u202a-\u202e\u2060-\u2064\ufeff\u00ad]/g;

function normalise(text: string): string {
  return text
    .normalize('NFKC')
    .replace(INVISIBLE, '')
    .toLowerCase()
    .replace(/[ \t]+/g, ' ');
}

/**
 * Why `text` reads as instructions to a model (`"instruction override"`, `"role tag
 * spoofing"`, …), or undefined when it reads as plain content.
 */
export function findInjection(text: string): string | undefined {
  const normalised = normalise(text);
  for (const { reason, pattern } of RULES) {
    if (pattern.test(normalised)) return reason;
  }
  return undefined;
}
