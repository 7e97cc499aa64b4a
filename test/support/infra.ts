import { readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const env = process.env;
const port = (name: string, fallback: number): number => Number(env[name] ?? fallback);

/**
 * Where the real servers started by deploy/local listen. Tests read the same variables as
 * the scripts, so a changed port is changed in one place.
 */
export const infra = {
  natsUrl: env.TOLLGATE_NATS_URL ?? `nats://127.0.0.1:${port('TOLLGATE_NATS_PORT', 4222)}`,
  mongoUrl: env.TOLLGATE_MONGO_URL ?? `mongodb://127.0.0.1:${port('TOLLGATE_MONGO_PORT', 27017)}`,
  esUrl: env.TOLLGATE_ES_URL ?? `http://127.0.0.1:${port('TOLLGATE_ES_PORT', 9200)}`,
  /** Jaeger: OTLP receivers (gRPC, HTTP) and the query API (`/api/traces/<id>`). */
  jaeger: {
    otlpGrpcUrl: `http://127.0.0.1:${port('TOLLGATE_JAEGER_OTLP_GRPC_PORT', 4317)}`,
    otlpHttpUrl: `http://127.0.0.1:${port('TOLLGATE_JAEGER_OTLP_HTTP_PORT', 4318)}`,
    queryUrl:
      env.TOLLGATE_JAEGER_QUERY_URL ??
      `http://127.0.0.1:${port('TOLLGATE_JAEGER_QUERY_PORT', 16686)}`,
  },
};

/** deploy/local's state folder: where each server keeps its log and credential files. */
export const stateDir = resolve(
  env.TOLLGATE_STATE_DIR ??
    join(dirname(fileURLToPath(import.meta.url)), '..', '..', '.tollgate', 'local'),
);

/** Reads a KEY=VALUE file written by deploy/local (comments and blank lines skipped). */
export function readEnvFile(path: string): Record<string, string> {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (err) {
    throw new Error(
      `cannot read ${path} (${(err as NodeJS.ErrnoException).code}); start the server with deploy/local/up.sh`,
    );
  }
  const out: Record<string, string> = {};
  for (const line of text.split('\n')) {
    const m = /^([A-Z_][A-Z0-9_]*)=(.*)$/.exec(line);
    if (m) out[m[1]!] = m[2]!;
  }
  return out;
}

/** How to reach a SQL server as its admin (a superuser, or all privileges with grant). */
export interface SqlAdmin {
  host: string;
  port: number;
  user: string;
  password: string;
  database: string;
  /** The server's own output (statement log lines when statement logging is on). */
  logFile: string;
}

/** PostgreSQL's admin, from `<state>/postgres/admin.env` (TOLLGATE_PG_PORT overrides the port). */
export function postgresAdmin(): SqlAdmin {
  const f = readEnvFile(join(stateDir, 'postgres', 'admin.env'));
  return {
    host: f.PGHOST ?? '127.0.0.1',
    port: port('TOLLGATE_PG_PORT', Number(f.PGPORT ?? 5432)),
    user: f.PGUSER ?? 'tollgate_admin',
    password: f.PGPASSWORD ?? '',
    database: f.PGDATABASE ?? 'tollgate',
    logFile: join(stateDir, 'postgres', 'server.log'),
  };
}

/** MariaDB's admin, from `<state>/mariadb/admin.env` (TOLLGATE_MYSQL_PORT overrides the port). */
export function mysqlAdmin(): SqlAdmin {
  const f = readEnvFile(join(stateDir, 'mariadb', 'admin.env'));
  return {
    host: f.MYSQL_HOST ?? '127.0.0.1',
    port: port('TOLLGATE_MYSQL_PORT', Number(f.MYSQL_TCP_PORT ?? 3306)),
    user: f.MYSQL_USER ?? 'tollgate_admin',
    password: f.MYSQL_PWD ?? '',
    database: f.MYSQL_DATABASE ?? 'tollgate',
    logFile: join(stateDir, 'mariadb', 'server.log'),
  };
}

/** Directus: its URL, the ticket connector's static token and the admin login. */
export interface DirectusAccess {
  url: string;
  /** Static token of the `tollgate-connector` user (role `Ticket connector`). */
  token: string;
  /** The collection that user may read, create and update. */
  collection: string;
  adminEmail: string;
  adminPassword: string;
}

/** From `<state>/directus/connector.env` and `admin.env`. */
export function directusAccess(): DirectusAccess {
  const c = readEnvFile(join(stateDir, 'directus', 'connector.env'));
  const a = readEnvFile(join(stateDir, 'directus', 'admin.env'));
  return {
    url:
      env.TOLLGATE_DIRECTUS_URL ??
      `http://127.0.0.1:${port('TOLLGATE_DIRECTUS_PORT', Number(c.DIRECTUS_PORT ?? 8055))}`,
    token: c.DIRECTUS_TOKEN ?? '',
    collection: c.DIRECTUS_COLLECTION ?? 'tickets',
    adminEmail: a.DIRECTUS_ADMIN_EMAIL ?? '',
    adminPassword: a.DIRECTUS_ADMIN_PASSWORD ?? '',
  };
}

export { busEnv, connectTestBus, sharedCredentialsDir } from './bus.js';

/** A name no other test run uses, for indices, databases, buckets and durables. */
export function uniqueName(prefix: string): string {
  return `${prefix}_${Date.now().toString(36)}_${Math.random().toString(36).slice(2, 8)}`;
}

/** Polls `check` until it returns a value or `timeoutMs` passes. */
export async function eventually<T>(
  check: () => Promise<T | undefined> | T | undefined,
  timeoutMs = 5_000,
  stepMs = 25,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let lastErr: unknown;
  for (;;) {
    try {
      const v = await check();
      if (v !== undefined) return v;
    } catch (err) {
      lastErr = err;
    }
    if (Date.now() > deadline)
      throw new Error(
        `condition not met within ${timeoutMs} ms${lastErr ? `: ${(lastErr as Error).message}` : ''}`,
      );
    await new Promise((r) => setTimeout(r, stepMs));
  }
}
