/**
 * Secret screening for conversations (memory, registration by chat): credential detection plus
 * the shapes secrets take in
 * conversations — connection strings (`Server=…;Password=…`, `AccountKey=…`), bearer and Basic
 * credentials, credentials in URLs, private keys, a password or key named in any of the
 * product's languages ("密码是 …", "Passwort lautet …"), hex and base64 key material. Findings
 * and redactions name the place (a JSON Pointer) and the kind of secret, never the value.
 */
import { isCredentialReference, isSecretKey, looksLikeSecret } from '../descriptor/secrets.js';
import { withoutInvisible } from './normalise.js';

/**
 * The words for a password, passphrase or key in the languages the product is used in, and
 * what may stand between such a word and the secret ("is", ":", "lautet", "是", "は", "는" …).
 */
const SECRET_WORD =
  '(?<![a-z0-9])(?:pass(?:word|phrase|code|wort)s?|pwd|passwd|pin|kennwort|mot de passe|mdp|contraseña|contrasena|clave|senha|wachtwoord|пароль|пароля|密码|密碼|口令|パスワード|暗証番号|비밀번호|암호|api[ _-]?key|api ?密钥|api ?密鑰|access[ _-]?key|secret[ _-]?key|private[ _-]?key|client[ _-]?secret|auth[ _-]?token|access[ _-]?token|x-api-key)(?![a-z])["\']?';
const SEPARATOR =
  '(?:\\s*(?:[:=：]|->|=>|[-–—])\\s*|\\s*(?:是|为|為|は|が|은|는|이)\\s*|\\s+(?:is|was|is set to|lautet|ist|est|es|é|è|je|от\\s+\\p{L}+)\\s+|\\s+)';
/** A secret after one of the words: at least four characters with a digit or a symbol in them. */
const SECRET_AFTER_WORD = new RegExp(
  `${SECRET_WORD}${SEPARATOR}["'「『“]?(?=[^\\s"'」』”]*[\\d!#$%&*+/=?@^_~-])[^\\s"'」』”]{4,}`,
  'iu',
);

interface SecretShape {
  reason: string;
  pattern: RegExp;
  /** A further check of what matched. */
  accept?: (match: RegExpExecArray) => boolean;
}

/** Secret shapes core's token patterns do not cover, in the wording of conversations. */
const SECRET_SHAPES: readonly SecretShape[] = [
  {
    reason: 'connection string with password',
    pattern: /(?:^|;)\s*(?:password|pwd)\s*=\s*[^;\s]/i,
  },
  {
    reason: 'storage account key',
    pattern: /\b(?:AccountKey|SharedAccessKey)\s*=\s*[^;\s]{8,}/i,
  },
  { reason: 'bearer token', pattern: /\bbearer\s+[A-Za-z0-9._~+/-]{20,}/i },
  {
    reason: 'basic credentials',
    pattern: /\bbasic\s+(?:auth\w*\s+)?([A-Za-z0-9+/]{8,}={0,2})(?![A-Za-z0-9+/=])/i,
    accept: (match) => /^[\x20-\x7e]+:[\x20-\x7e]+$/.test(base64Text(match[1] ?? '')),
  },
  { reason: 'credentials in a URL', pattern: /\b[a-z][a-z0-9+.-]*:\/\/[^\s:/@]+:[^\s@/]+@/i },
  { reason: 'private key', pattern: /-----BEGIN [A-Z ]*PRIVATE KEY-----/ },
  { reason: 'password or key', pattern: SECRET_AFTER_WORD },
  {
    reason: 'hex key material',
    pattern:
      /(?<![0-9a-f])[0-9a-f]{64,}(?![0-9a-f])|(?:key|secret|token|seed|salt)\W{0,4}[0-9a-f]{32,}/i,
  },
  {
    reason: 'base64 key material',
    pattern:
      /(?<![A-Za-z0-9+/])(?=[A-Za-z0-9+/]*[0-9+/])(?=[A-Za-z0-9+/]*[a-z])(?=[A-Za-z0-9+/]*[A-Z])[A-Za-z0-9+/]{40,}={0,2}/,
  },
];

function base64Text(text: string): string {
  return Buffer.from(text, 'base64').toString('latin1');
}

/** Why a piece of text looks like a credential, or undefined. */
export function secretReason(text: string): string | undefined {
  // As written, and without the invisible characters that would split a word or a key apart.
  const normalised = text.normalize('NFKC');
  const visible = withoutInvisible(normalised);
  for (const form of visible === normalised ? [text] : [text, visible]) {
    const reason = looksLikeSecret(form);
    if (reason !== undefined) return reason;
  }
  for (const form of visible === normalised ? [normalised] : [normalised, visible]) {
    for (const { reason, pattern, accept } of SECRET_SHAPES) {
      const match = pattern.exec(form);
      if (match !== null && (accept === undefined || accept(match))) return reason;
    }
  }
  return undefined;
}

/** One secret-looking value: where (JSON Pointer) and what kind. */
export interface SecretHit {
  path: string;
  reason: string;
}

/** Appends one key or index to a JSON Pointer. */
export function pointerJoin(base: string, key: string | number): string {
  return `${base}/${String(key).replace(/~/g, '~0').replace(/\//g, '~1')}`;
}

/** Every secret-looking value or key in a JSON value, with its JSON Pointer under `base`. */
export function findSecretValues(value: unknown, base = ''): SecretHit[] {
  const hits: SecretHit[] = [];
  walk(value, base, false, (path, reason) => {
    hits.push({ path, reason });
    return undefined;
  });
  return hits;
}

/**
 * A copy of `value` with every secret-looking string (and every literal under a secret-named
 * key) replaced by `[redacted]`, and secret-looking keys renamed; plus the pointers replaced.
 */
export function redactSecrets<T>(value: T): { value: T; paths: string[] } {
  const paths: string[] = [];
  const redacted = walk(value, '', false, (path) => {
    paths.push(path);
    return REDACTED;
  });
  return { value: redacted as T, paths };
}

export const REDACTED = '[redacted]';

type OnSecret = (path: string, reason: string) => unknown;

function walk(value: unknown, path: string, underSecretKey: boolean, onSecret: OnSecret): unknown {
  if (typeof value === 'string') {
    const reason = secretReason(value);
    if (reason !== undefined) return onSecret(path, reason) ?? value;
    if (underSecretKey && value !== '' && value !== REDACTED && !isCredentialReference(value)) {
      return onSecret(path, 'literal value under a secret-named key') ?? value;
    }
    return value;
  }
  if (typeof value === 'number' && underSecretKey) {
    return onSecret(path, 'literal value under a secret-named key') ?? value;
  }
  if (value === null || typeof value !== 'object') return value;
  if (Array.isArray(value)) {
    return value.map((item, index) =>
      walk(item, pointerJoin(path, index), underSecretKey, onSecret),
    );
  }
  const out: Record<string, unknown> = {};
  let renamed = 0;
  for (const [key, child] of Object.entries(value)) {
    const childPath = pointerJoin(path, key);
    let outKey = key;
    const keyReason = secretReason(key);
    if (keyReason !== undefined && onSecret(childPath, `key: ${keyReason}`) !== undefined) {
      outKey = `${REDACTED}#${++renamed}`;
    }
    out[outKey] = walk(child, childPath, isSecretKey(key), onSecret);
  }
  return out;
}
