import { connect } from '@nats-io/transport-node';
import type { NatsConnection } from '@nats-io/transport-node';
import { errorFromTransport } from './wire-errors.js';

/** Where NATS is and how to reach it; the token itself authenticates the connection. */
export interface BusConnectOptions {
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
 */
export async function connectWithToken(
  options: BusConnectOptions,
  defaults: { name: string; inboxPrefix?: string },
): Promise<NatsConnection> {
  const timeoutMs = options.connectTimeoutMs ?? 5_000;
  try {
    return await connect({
      servers: options.natsUrl,
      name: options.name ?? defaults.name,
      timeout: timeoutMs,
      maxReconnectAttempts: -1,
      reconnectTimeWait: 250,
      token: options.token,
      ...(defaults.inboxPrefix ? { inboxPrefix: defaults.inboxPrefix } : {}),
      ...(options.tlsCaFile ? { tls: { caFile: options.tlsCaFile } } : {}),
    });
  } catch (err) {
    throw errorFromTransport(err, 'connect', timeoutMs);
  }
}
