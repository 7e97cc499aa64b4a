/**
 * Secret detection: finds values that look like credentials so they can be rejected before
 * they are stored, logged or shown to a model. Findings say what kind of secret a value looks
 * like, never the value itself. Used for descriptors, and reusable for memory and log screening.
 */
import { joinPath } from './path.js';

/** One value that looks like a secret. `reason` names the kind, never the value. */
export interface SecretFinding {
  path: string;
  reason: string;
}

/** A known token format: its shape and what to call it in a finding. */
interface TokenPattern {
  reason: string;
  pattern: RegExp;
  /** Extra check on the match, to keep ordinary words out. */
  accept?: (match: string) => boolean;
}

const hasLetterAndDigit = (text: string): boolean => /[0-9]/.test(text) && /[A-Za-z]/.test(text);

const TOKEN_PATTERNS: readonly TokenPattern[] = [
  { reason: 'PEM private key', pattern: /-----BEGIN [A-Z0-9 ]*PRIVATE KEY(?: BLOCK)?-----/ },
  { reason: 'URL with user:password', pattern: /\b[a-z][a-z0-9+.-]*:\/\/[^\s/:@?#]*:[^\s/@?#]+@/i },
  {
    reason: 'AWS access key id',
    pattern: /\b(?:AKIA|ASIA|AGPA|AIDA|AROA|ANPA|ANVA|APKA)[0-9A-Z]{16}\b/,
  },
  { reason: 'GitHub token', pattern: /\b(?:ghp|gho|ghu|ghs|ghr)_[A-Za-z0-9]{20,}/ },
  { reason: 'GitHub token', pattern: /\bgithub_pat_[A-Za-z0-9_]{20,}/ },
  { reason: 'GitLab token', pattern: /\bglpat-[A-Za-z0-9_-]{20,}/ },
  { reason: 'Anthropic API key', pattern: /\bsk-ant-[A-Za-z0-9_-]{20,}/ },
  {
    reason: 'OpenAI API key',
    pattern: /\bsk-(?:proj-|svcacct-|admin-)?[A-Za-z0-9_-]{20,}/,
    accept: hasLetterAndDigit,
  },
  { reason: 'Stripe API key', pattern: /\b(?:sk|rk)_(?:live|test)_[A-Za-z0-9]{16,}/ },
  { reason: 'Slack token', pattern: /\bxox[baprs]-[A-Za-z0-9-]{10,}/ },
  { reason: 'Slack webhook URL', pattern: /hooks\.slack\.com\/services\/T[A-Za-z0-9_/]{10,}/ },
  { reason: 'Google API key', pattern: /\bAIza[0-9A-Za-z_-]{35}/ },
  {
    reason: 'JSON Web Token',
    pattern: /\beyJ[A-Za-z0-9_-]{4,}\.eyJ[A-Za-z0-9_-]{4,}\.[A-Za-z0-9_-]*/,
  },
  { reason: 'Vault token', pattern: /\bhv[sbr]\.[A-Za-z0-9_-]{20,}/ },
  { reason: 'npm token', pattern: /\bnpm_[A-Za-z0-9]{36}\b/ },
  {
    reason: 'credential assignment in text',
    pattern: /\b(?:password|passwd|pwd|secret|token|api[_-]?key)\s*[:=]\s*["']?[^\s"',;]{6,}/i,
    accept: (match) => /[0-9]|[^A-Za-z0-9\s"':=_.-]/.test(match.replace(/^[^:=]*[:=]/, '')),
  },
];

/** Keys whose literal values are secrets, compared lowercase without separators. */
const SECRET_KEY =
  /(?:password|passwd|passphrase|secret|token|apikey|accesskey|secretkey|privatekey|signingkey|encryptionkey|sessionkey|authorization|credentials?)$|^pwd$/;

/** References to where a secret lives, which are fine anywhere. */
const REFERENCE = /^(?:env|file|vault):\/\/\S+$/;

/** Minimum length of a token considered by the entropy check. */
const ENTROPY_MIN_LENGTH = 32;

/** True when the text is a credential reference (`env://`, `file://`, `vault://`). */
export function isCredentialReference(text: string): boolean {
  return REFERENCE.test(text);
}

/** True when a key names a secret (`password`, `api_key`, `clientSecret`, …). */
export function isSecretKey(key: string): boolean {
  return SECRET_KEY.test(key.toLowerCase().replace(/[^a-z0-9]/g, ''));
}

/**
 * Why a piece of text looks like a secret (`"GitHub token"`, `"high-entropy string"`, …), or
 * undefined when it does not. Hex digests and UUIDs are not treated as secrets.
 */
export function looksLikeSecret(text: string): string | undefined {
  for (const { reason, pattern, accept } of TOKEN_PATTERNS) {
    const match = pattern.exec(text);
    if (match && (accept === undefined || accept(match[0]))) return reason;
  }
  for (const token of text.match(/[A-Za-z0-9+/=_-]{32,}/g) ?? []) {
    if (isRandomToken(token)) return 'high-entropy string';
  }
  return undefined;
}

/**
 * Every value (and key) in `value` that looks like a secret, with its path under `path`. A key
 * named like a secret (`password`, `token`, …) holding a literal is a finding; holding a
 * credential reference (`vault://…`) or an empty string it is not.
 */
export function findSecrets(value: unknown, path = ''): SecretFinding[] {
  const findings: SecretFinding[] = [];
  walk(value, path, false, new Set(), findings);
  return findings;
}

function walk(
  value: unknown,
  path: string,
  underSecretKey: boolean,
  ancestors: Set<object>,
  findings: SecretFinding[],
): void {
  if (typeof value === 'string') {
    const reason = looksLikeSecret(value);
    if (reason !== undefined) findings.push({ path, reason });
    else if (underSecretKey && value !== '' && !isCredentialReference(value)) {
      findings.push({ path, reason: 'literal value under a secret-named key' });
    }
    return;
  }
  if (typeof value === 'number' || typeof value === 'bigint') {
    if (underSecretKey) findings.push({ path, reason: 'literal value under a secret-named key' });
    return;
  }
  if (value === null || typeof value !== 'object' || ancestors.has(value)) return;
  ancestors.add(value);
  if (Array.isArray(value)) {
    value.forEach((item, index) =>
      walk(item, joinPath(path, index), underSecretKey, ancestors, findings),
    );
  } else {
    for (const [key, child] of Object.entries(value)) {
      const childPath = joinPath(path, key);
      const keyReason = looksLikeSecret(key);
      if (keyReason !== undefined) findings.push({ path: childPath, reason: `key: ${keyReason}` });
      walk(child, childPath, isSecretKey(key), ancestors, findings);
    }
  }
  ancestors.delete(value);
}

/**
 * A long token that reads like random key material: mixes letters and digits, is not a hex
 * digest or UUID, has a long unbroken run, high Shannon entropy, frequent changes between
 * digits, lowercase and uppercase, and few vowels (identifiers made of words have many).
 */
function isRandomToken(token: string): boolean {
  if (token.length < ENTROPY_MIN_LENGTH || /^[0-9a-fA-F-]+$/.test(token)) return false;
  const alnum = token.replace(/[^A-Za-z0-9]/g, '');
  const letters = alnum.replace(/[0-9]/g, '');
  if (letters.length === 0 || letters.length === alnum.length) return false;
  const longestRun = Math.max(...token.split(/[^A-Za-z0-9]/).map((run) => run.length));
  const vowels = (letters.match(/[aeiouAEIOU]/g) ?? []).length / letters.length;
  return (
    longestRun >= 16 && shannonEntropy(alnum) >= 4 && classChanges(alnum) >= 0.3 && vowels < 0.35
  );
}

/** Bits per character. */
function shannonEntropy(text: string): number {
  const counts = new Map<string, number>();
  for (const char of text) counts.set(char, (counts.get(char) ?? 0) + 1);
  let bits = 0;
  for (const count of counts.values()) {
    const p = count / text.length;
    bits -= p * Math.log2(p);
  }
  return bits;
}

/** Share of adjacent characters that switch between digit, lowercase and uppercase. */
function classChanges(alnum: string): number {
  const kind = (char: string): number => (char <= '9' ? 0 : char <= 'Z' ? 1 : 2);
  let changes = 0;
  for (let i = 1; i < alnum.length; i++) {
    if (kind(alnum[i] ?? '') !== kind(alnum[i - 1] ?? '')) changes++;
  }
  return changes / Math.max(1, alnum.length - 1);
}
