import { natsServers } from '@tollgate/core';
import { connect, errors as natsErrors } from '@nats-io/transport-node';
import type { NatsConnection } from '@nats-io/transport-node';
import { readTokenExpiry } from './protocol.js';
import { errorFromTransport } from './wire-errors.js';

/** Where NATS is and how to reach it; the token itself authenticates the connection. */
export interface BusConnectOptions {
  /** One server's URL, or every node of a cluster (an array, or one string comma-separated). */
  natsUrl: string | string[];
  /** The Tollgate token presented at CONNECT (an agent's, or an event subscriber's). */
  token: string;
  /** Connection name shown in NATS monitoring. */
  name?: string;
  /** How long the first connection may take, ms (default 5000). */
  connectTimeoutMs?: number;
  /** PEM CA file that signed the server's certificate, for a `tls://` bus. */
  tlsCaFile?: string;
}

/**
 * Connects with the token as the NATS auth token (the server's auth callout verifies it and
 * decides what the connection may do). A refused token is an UNAUTHENTICATED ToolCallError.
 *
 * Once connected, the client reconnects for as long as the token is valid. Right after a NATS
 * restart the server refuses every connection until the auth callout service is back, so
 * nats.js's default — give up for good after the same auth error twice — would close a healthy
 * agent's connection on a routine restart. An auth error after the token's `exp` closes it.
 */
export async function connectWithToken(
  options: BusConnectOptions,
  defaults: { name: string; inboxPrefix?: string },
): Promise<NatsConnection> {
  const timeoutMs = options.connectTimeoutMs ?? 5_000;
  let nc: NatsConnection;
  try {
    nc = await connect({
      servers: natsServers(options.natsUrl),
      name: options.name ?? defaults.name,
      timeout: timeoutMs,
      maxReconnectAttempts: -1,
      reconnectTimeWait: 250,
      ignoreAuthErrorAbort: true,
      token: options.token,
      ...(defaults.inboxPrefix ? { inboxPrefix: defaults.inboxPrefix } : {}),
      ...(options.tlsCaFile ? { tls: { caFile: options.tlsCaFile } } : {}),
    });
  } catch (err) {
    throw errorFromTransport(err, 'connect', timeoutMs);
  }
  const expiresAt = readTokenExpiry(options.token);
  if (expiresAt !== undefined) void closeOnceExpired(nc, expiresAt);
  return nc;
}

/** Closes the connection at the first auth error after `expiresAt` (ms): it cannot recover. */
async function closeOnceExpired(nc: NatsConnection, expiresAt: number): Promise<void> {
  for await (const status of nc.status()) {
    if (status.type !== 'error' || Date.now() < expiresAt) continue;
    const error = (status as { error?: unknown }).error;
    if (
      error instanceof natsErrors.AuthorizationError ||
      error instanceof natsErrors.UserAuthenticationExpiredError
    ) {
      await nc.close().catch(() => undefined);
      return;
    }
  }
}
