/**
 * Typed configuration from environment variables. A service declares its config as a record
 * of fields; `loadConfig` reads them all and fails once, listing every problem.
 */

/** One configuration entry: which variable, how to parse it, and its default. */
export interface ConfigField<T> {
  readonly env: string;
  readonly description: string;
  readonly default?: T;
  parse(raw: string): T;
  /** Rendered in error messages instead of the raw value (for secrets). */
  readonly secret?: boolean;
}

export type ConfigSpec = Record<string, ConfigField<unknown>>;
export type ConfigOf<S extends ConfigSpec> = {
  [K in keyof S]: S[K] extends ConfigField<infer T> ? T : never;
};

export class ConfigError extends Error {
  readonly problems: string[];
  constructor(service: string, problems: string[]) {
    super(`${service}: invalid configuration:\n  - ${problems.join('\n  - ')}`);
    this.name = 'ConfigError';
    this.problems = problems;
  }
}

export function loadConfig<S extends ConfigSpec>(
  service: string,
  spec: S,
  env: Record<string, string | undefined> = process.env,
): ConfigOf<S> {
  const out: Record<string, unknown> = {};
  const problems: string[] = [];
  for (const [key, field] of Object.entries(spec)) {
    const raw = env[field.env];
    if (raw === undefined || raw === '') {
      if (field.default === undefined)
        problems.push(`${field.env}: required (${field.description})`);
      else out[key] = field.default;
      continue;
    }
    try {
      out[key] = field.parse(raw);
    } catch (err) {
      const shown = field.secret ? '<redacted>' : JSON.stringify(raw);
      problems.push(`${field.env}: ${(err as Error).message}, found ${shown}`);
    }
  }
  if (problems.length > 0) throw new ConfigError(service, problems);
  return out as ConfigOf<S>;
}

function checkUrl(raw: string, protocols: string[]): string {
  let u: URL;
  try {
    u = new URL(raw);
  } catch {
    throw new Error(`expected a URL (${protocols.join(', ')})`);
  }
  if (!protocols.includes(u.protocol.replace(/:$/, ''))) {
    throw new Error(`expected a URL with scheme ${protocols.join(' or ')}`);
  }
  return raw;
}

function field<T>(
  env: string,
  description: string,
  parse: (raw: string) => T,
  dflt?: T,
  secret = false,
): ConfigField<T> {
  return dflt === undefined
    ? { env, description, parse, secret }
    : { env, description, parse, default: dflt, secret };
}

export const cfg = {
  string(env: string, description: string, dflt?: string): ConfigField<string> {
    return field(env, description, (raw) => raw, dflt);
  },
  secret(env: string, description: string, dflt?: string): ConfigField<string> {
    return field(env, description, (raw) => raw, dflt, true);
  },
  int(
    env: string,
    description: string,
    dflt?: number,
    min = 0,
    max = Number.MAX_SAFE_INTEGER,
  ): ConfigField<number> {
    return field(
      env,
      description,
      (raw) => {
        const n = Number(raw);
        if (!/^-?\d+$/.test(raw.trim()) || !Number.isSafeInteger(n) || n < min || n > max) {
          throw new Error(`expected an integer between ${min} and ${max}`);
        }
        return n;
      },
      dflt,
    );
  },
  port(env: string, description: string, dflt?: number): ConfigField<number> {
    return cfg.int(env, description, dflt, 0, 65535);
  },
  url(env: string, description: string, protocols: string[], dflt?: string): ConfigField<string> {
    return field(env, description, (raw) => checkUrl(raw, protocols), dflt, false);
  },
  /** One URL or several, comma-separated (e.g. every node of a cluster); each is checked. */
  urls(env: string, description: string, protocols: string[], dflt?: string): ConfigField<string> {
    return field(
      env,
      description,
      (raw) => {
        const parts = raw.split(',').map((part) => part.trim());
        if (parts.length === 1) return checkUrl(parts[0]!, protocols);
        return parts
          .map((part, i) => {
            try {
              return checkUrl(part, protocols);
            } catch (err) {
              throw new Error(`URL ${i + 1} of ${parts.length}: ${(err as Error).message}`);
            }
          })
          .join(',');
      },
      dflt,
      false,
    );
  },
  bool(env: string, description: string, dflt?: boolean): ConfigField<boolean> {
    return field(
      env,
      description,
      (raw) => {
        const v = raw.trim().toLowerCase();
        if (['1', 'true', 'yes', 'on'].includes(v)) return true;
        if (['0', 'false', 'no', 'off'].includes(v)) return false;
        throw new Error('expected true or false');
      },
      dflt,
    );
  },
  oneOf<T extends string>(
    env: string,
    description: string,
    values: readonly T[],
    dflt?: T,
  ): ConfigField<T> {
    return field(
      env,
      description,
      (raw) => {
        if (!(values as readonly string[]).includes(raw))
          throw new Error(`expected one of ${values.join(', ')}`);
        return raw as T;
      },
      dflt,
    );
  },
};

/** Where the dev issuer's keys are created when no trusted-issuers file is configured. */
export const DEV_ISSUER_FILE = '.tollgate/dev-issuer.json';

/** Settings every service shares: where NATS is, whose tokens to trust, the log level. */
export const commonConfig = {
  natsUrl: cfg.urls(
    'TOLLGATE_NATS_URL',
    'NATS server URL, or every node of a cluster comma-separated',
    ['nats', 'tls'],
    'nats://127.0.0.1:4222',
  ),
  trustedIssuersFile: cfg.string(
    'TOLLGATE_TRUSTED_ISSUERS_FILE',
    `trusted token issuers: [{ issuer, keys }] or an issuer key file (empty: a dev issuer at ${DEV_ISSUER_FILE})`,
    '',
  ),
  logLevel: cfg.oneOf(
    'TOLLGATE_LOG_LEVEL',
    'log level',
    ['trace', 'debug', 'info', 'warn', 'error', 'fatal', 'silent'] as const,
    'info',
  ),
  shutdownTimeoutMs: cfg.int(
    'TOLLGATE_SHUTDOWN_TIMEOUT_MS',
    'grace period on SIGTERM',
    10_000,
    100,
    600_000,
  ),
};

export const mongoConfig = {
  mongoUrl: cfg.url(
    'TOLLGATE_MONGO_URL',
    'MongoDB connection string',
    ['mongodb', 'mongodb+srv'],
    'mongodb://127.0.0.1:27017/tollgate',
  ),
};
