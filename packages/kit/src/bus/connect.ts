import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { natsServers } from '@tollgate/core';
import { connect, credsAuthenticator } from '@nats-io/transport-node';
import type { ConnectionOptions, NatsConnection } from '@nats-io/transport-node';
import type { Logger } from '../log/logger.js';
import { userSeedAuthenticator } from './nkey.js';

/**
 * How a process proves who it is to NATS (docs/bus.md): a service's NKey seed (or a `.creds`
 * file of a decentralised deployment), and the CA that signed the server's certificate when
 * the bus runs TLS.
 */
export interface BusAuth {
  /** File holding an NKey user seed (`SU…`) or a `.creds` file (JWT + seed). */
  credentialsFile?: string;
  /** PEM CA bundle to verify the server's certificate (TLS). */
  caFile?: string;
  /** Client certificate and key, when the server asks for one (mutual TLS). */
  certFile?: string;
  keyFile?: string;
}

export interface BusOptions {
  /** One server's URL, or several comma-separated (the nodes of a cluster). */
  url: string;
  /** Connection name shown in NATS monitoring. */
  name: string;
  logger?: Logger;
  /** How long the first connection may take before failing (ms). */
  connectTimeoutMs?: number;
  auth?: BusAuth;
  /**
   * Where this connection's request replies arrive. The bus lets each service subscribe only
   * to its own prefix (`_INBOX_<service>`), so no one reads another's replies.
   */
  inboxPrefix?: string;
}

export class BusUnavailableError extends Error {
  constructor(url: string, cause: unknown, hint = '') {
    const reason = (cause as Error)?.message ?? String(cause);
    super(`cannot reach NATS at ${redactUrl(url)}: ${reason}${hint}`, { cause });
    this.name = 'BusUnavailableError';
  }
}

function redactUrl(url: string): string {
  return natsServers(url)
    .map((one) => {
      try {
        const u = new URL(one);
        if (u.password) u.password = '***';
        return u.toString();
      } catch {
        return '<invalid url>';
      }
    })
    .join(',');
}

/** The inbox prefix of a service's connection: `_INBOX_<service>`. */
export function serviceInboxPrefix(service: string): string {
  return `_INBOX_${service}`;
}

/**
 * Where a service finds its NATS credentials, from the environment:
 * `TOLLGATE_NATS_CREDENTIALS_FILE` (an NKey seed or `.creds` file) or else
 * `<TOLLGATE_NATS_CREDENTIALS_DIR>/<service>.nk`, whose default is the folder deploy/local
 * writes: `$TOLLGATE_STATE_DIR/nats/credentials`, or `.tollgate/local/nats/credentials` under
 * the working directory. TLS: `TOLLGATE_NATS_CA_FILE`, and for mutual TLS
 * `TOLLGATE_NATS_CERT_FILE` + `TOLLGATE_NATS_KEY_FILE`.
 */
export function busAuthFromEnv(
  service: string,
  env: Record<string, string | undefined> = process.env,
): BusAuth {
  const dir =
    env['TOLLGATE_NATS_CREDENTIALS_DIR'] ||
    join(env['TOLLGATE_STATE_DIR'] || join('.tollgate', 'local'), 'nats', 'credentials');
  const file = env['TOLLGATE_NATS_CREDENTIALS_FILE'] || join(dir, `${service}.nk`);
  return {
    credentialsFile: file,
    ...(env['TOLLGATE_NATS_CA_FILE'] ? { caFile: env['TOLLGATE_NATS_CA_FILE'] } : {}),
    ...(env['TOLLGATE_NATS_CERT_FILE'] ? { certFile: env['TOLLGATE_NATS_CERT_FILE'] } : {}),
    ...(env['TOLLGATE_NATS_KEY_FILE'] ? { keyFile: env['TOLLGATE_NATS_KEY_FILE'] } : {}),
  };
}

/** Connection options for `auth`; a missing or unreadable file is a clear error. */
export function busAuthOptions(auth: BusAuth | undefined): Partial<ConnectionOptions> {
  if (auth === undefined) return {};
  const out: Partial<ConnectionOptions> = {};
  if (auth.credentialsFile !== undefined) {
    const text = readSecretFile(auth.credentialsFile, 'NATS credentials').trim();
    out.authenticator = text.includes('-----BEGIN NATS USER JWT-----')
      ? credsAuthenticator(new TextEncoder().encode(text))
      : userSeedAuthenticator(checkSeed(text, auth.credentialsFile));
  }
  if (auth.caFile !== undefined || auth.certFile !== undefined) {
    out.tls = {
      ...(auth.caFile !== undefined ? { caFile: auth.caFile } : {}),
      ...(auth.certFile !== undefined ? { certFile: auth.certFile } : {}),
      ...(auth.keyFile !== undefined ? { keyFile: auth.keyFile } : {}),
    };
  }
  return out;
}

function readSecretFile(path: string, what: string): string {
  try {
    return readFileSync(path, 'utf8');
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code ?? 'unreadable';
    throw new Error(
      `${what}: cannot read ${path} (${code}); run deploy/local/up.sh nats, or set TOLLGATE_NATS_CREDENTIALS_FILE`,
    );
  }
}

function checkSeed(text: string, path: string): string {
  if (!/^SU[A-Z2-7]{56}$/.test(text))
    throw new Error(`NATS credentials: ${path} holds neither an NKey user seed nor a .creds file`);
  return text;
}

/**
 * Connects to NATS. The first connection fails fast with a clear error (naming the
 * credentials when the server refused them); once connected, the client reconnects forever so
 * a NATS restart is ridden out.
 */
export async function connectBus(options: BusOptions): Promise<NatsConnection> {
  const authOptions = busAuthOptions(options.auth);
  let nc: NatsConnection;
  try {
    nc = await connect({
      servers: natsServers(options.url),
      name: options.name,
      timeout: options.connectTimeoutMs ?? 5_000,
      maxReconnectAttempts: -1,
      reconnectTimeWait: 250,
      ...(options.inboxPrefix ? { inboxPrefix: options.inboxPrefix } : {}),
      ...authOptions,
    });
  } catch (err) {
    const refused = /authorization|authentication/i.test(String((err as Error)?.message));
    const hint = refused
      ? ` (credentials ${options.auth?.credentialsFile ?? 'none'}; see TOLLGATE_NATS_CREDENTIALS_FILE)`
      : '';
    throw new BusUnavailableError(options.url, err, hint);
  }
  const logger = options.logger;
  if (logger) {
    void (async () => {
      for await (const s of nc.status()) {
        if (s.type === 'disconnect' || s.type === 'reconnect' || s.type === 'error') {
          logger.warn({ nats: s.type }, `nats ${s.type}`);
        }
      }
    })();
  }
  return nc;
}
