/**
 * The screen over what an upstream says to the model: tool descriptions at discovery (a
 * flagged tool cannot be selected without a recorded override) and text in results (flagged
 * items are withheld and reported). Core's instruction screen does the bulk; on top of it
 * come the shapes tool poisoning takes: invisible characters, asides addressed to the model,
 * requests for local secrets, and references to the server's other tools.
 */
import { findInjection } from '@tollgate/core';

/** Characters that render as nothing (or reorder text) and have no place in a description. */
const HIDDEN =
  // eslint-disable-next-line no-misleading-character-class -- it lists joiners and bidi controls on purpose
  /[\u00ad\u034f\u061c\u115f\u1160\u17b4\u17b5\u180b-\u180f\u200b-\u200f\u202a-\u202e\u2060-\u206f\ufe00-\ufe0f\ufeff\u{e0000}-\u{e007f}]/u;

const POISON: ReadonlyArray<{ reason: string; pattern: RegExp }> = [
  {
    reason: 'aside addressed to the model',
    pattern:
      /<\s*\/?\s*(?:important|instructions?|system|secret|hidden|note)\s*>|\[\s*(?:important|hidden|system)\s*\]/i,
  },
  {
    reason: 'asks for local secrets',
    pattern:
      /(?:~|\$home|\/home\/[^/\s]+|\/root)\/\.(?:ssh|aws|gnupg|config|kube|docker|netrc|npmrc)|\bid_(?:rsa|ed25519|ecdsa)\b|\/etc\/(?:passwd|shadow|sudoers)\b|\bmcp\.json\b|\.env\b|\b(?:private key|api[ _-]?keys?|access tokens?|passwords?|credentials)\b[^.]{0,60}\b(?:read|pass|send|include|attach|provide|put|add)\b|\b(?:read|pass|send|include|attach|provide|put|add)\b[^.]{0,60}\b(?:private key|api[ _-]?keys?|access tokens?|passwords?|credentials)\b/i,
  },
  {
    reason: 'smuggles data through an argument',
    pattern:
      /\b(?:as|in|into) (?:the |a )?(?:sidenote|side note|note|comment|hidden|extra|metadata) (?:parameter|argument|field)\b|\bpass (?:its|the|their) (?:content|contents|value)s? (?:as|in|into)\b/i,
  },
];

/** Why `description` reads as aimed at the model, or undefined. `siblings`: the server's other tools. */
export function screenDescription(
  description: string,
  siblings: readonly string[] = [],
): string | undefined {
  if (HIDDEN.test(description)) return 'hidden characters';
  for (const { reason, pattern } of POISON) if (pattern.test(description)) return reason;
  const found = findInjection(description, { allowToolNames: true, describesTool: true });
  if (found !== undefined) return found;
  const lower = description.toLowerCase();
  for (const sibling of siblings) {
    if (sibling.length >= 3 && wordIn(lower, sibling.toLowerCase())) return 'names another tool';
  }
  return undefined;
}

/** Why a text from a result reads as instructions to a model, or undefined. */
export function screenResultText(text: string): string | undefined {
  const sample = text.length > 65_536 ? text.slice(0, 65_536) : text;
  if (HIDDEN.test(sample)) return 'hidden characters';
  for (const { reason, pattern } of POISON.slice(0, 1)) if (pattern.test(sample)) return reason;
  return findInjection(sample, { allowToolNames: true });
}

function wordIn(text: string, word: string): boolean {
  const escaped = word.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  return new RegExp(`(^|[^a-z0-9_])${escaped}($|[^a-z0-9_])`).test(text);
}
