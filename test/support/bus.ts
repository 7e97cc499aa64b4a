/**
 * How tests reach an authenticated bus (docs/bus.md, deploy/nats/tollgate.conf). Every
 * connection a test opens names the role it stands in for; `admin` (the operator's key) may do
 * anything and is what harnesses use to seed buckets and read streams. Services a test starts
 * as child processes find their own credentials through `busEnv` (or, on the shared server,
 * the folder deploy/local wrote).
 */
import { existsSync, readFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import type { NatsConnection } from '@nats-io/transport-node';
import { connectBus, serviceInboxPrefix } from '@tollgate/kit';
import { repoRoot, startService } from './process.js';
import type { RunningService } from './process.js';

/** The nats-server version deploy/local builds and every test server runs. */
export const NATS_VERSION = readFileSync(join(repoRoot, 'deploy/nats/version'), 'utf8').trim();

/** The nats-server and nk binaries deploy/local built (TOLLGATE_NATS_SERVER_BIN overrides). */
export function natsBinaries(): { server: string; nk: string } {
  const cache = process.env['TOLLGATE_CACHE_DIR'] ?? join(homedir(), '.cache', 'tollgate');
  const bin = join(cache, 'nats-server', NATS_VERSION, 'bin');
  const server = process.env['TOLLGATE_NATS_SERVER_BIN'] ?? join(bin, 'nats-server');
  const nk = process.env['TOLLGATE_NK_BIN'] ?? join(bin, 'nk');
  if (!existsSync(server) || !existsSync(nk))
    throw new Error(`nats-server ${NATS_VERSION} is not built: run bash deploy/local/up.sh nats`);
  return { server, nk };
}

/** Where the shared server's credentials are: the folder deploy/local wrote. */
export function sharedCredentialsDir(): string {
  return (
    process.env['TOLLGATE_NATS_CREDENTIALS_DIR'] ??
    join(
      process.env['TOLLGATE_STATE_DIR'] ?? join(repoRoot, '.tollgate', 'local'),
      'nats',
      'credentials',
    )
  );
}

/** A role of deploy/nats/tollgate.conf: a service's, `mcp`, or `admin`. */
export type BusRole =
  | 'admin'
  | 'registry'
  | 'synthesizer'
  | 'policy'
  | 'executor'
  | 'memory'
  | 'audit'
  | 'mcp'
  | 'console'
  | 'auth-callout';

export interface TestBusOptions {
  url: string;
  name: string;
  /** Whose key to connect with (default `admin`). */
  role?: BusRole;
  /** Folder of the seeds (default: the shared server's). */
  credentialsDir?: string;
}

/** Connects as `role`, reading its replies on that role's own inbox prefix. */
export function connectTestBus(options: TestBusOptions): Promise<NatsConnection> {
  const role = options.role ?? 'admin';
  const dir = options.credentialsDir ?? sharedCredentialsDir();
  return connectBus({
    url: options.url,
    name: options.name,
    auth: { credentialsFile: join(dir, `${role}.nk`) },
    ...(role === 'admin' ? {} : { inboxPrefix: serviceInboxPrefix(role) }),
  });
}

/** Environment for a service started as a child process: where NATS is and its credentials. */
export function busEnv(url: string, credentialsDir: string): Record<string, string> {
  return { TOLLGATE_NATS_URL: url, TOLLGATE_NATS_CREDENTIALS_DIR: credentialsDir };
}

/**
 * The real auth callout (services/auth-callout, built) serving the server at `url`, trusting
 * the issuers in `trustedIssuersFile`: agents and event subscribers can then connect with
 * their tokens. Resolves once it serves; `stop()` ends it.
 */
export async function startAuthCallout(
  url: string,
  credentialsDir: string,
  trustedIssuersFile: string,
): Promise<{ service: RunningService; stop(): Promise<void> }> {
  const service = startService('auth-callout', {
    ...busEnv(url, credentialsDir),
    TOLLGATE_TRUSTED_ISSUERS_FILE: trustedIssuersFile,
    TOLLGATE_AUTH_CALLOUT_GRPC_ADDR: '127.0.0.1:0',
  });
  await service.waitForLog((line) => line['msg'] === 'ready', 30_000);
  return {
    service,
    async stop() {
      if (service.child.exitCode === null) {
        service.child.kill('SIGTERM');
        await service.exited;
      }
    },
  };
}
