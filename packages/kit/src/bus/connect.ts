import { connect } from '@nats-io/transport-node';
import type { NatsConnection } from '@nats-io/transport-node';
import type { Logger } from '../log/logger.js';

export interface BusOptions {
  url: string;
  /** Connection name shown in NATS monitoring. */
  name: string;
  logger?: Logger;
  /** How long the first connection may take before failing (ms). */
  connectTimeoutMs?: number;
  token?: string;
}

export class BusUnavailableError extends Error {
  constructor(url: string, cause: unknown) {
    super(`cannot reach NATS at ${redactUrl(url)}: ${(cause as Error)?.message ?? String(cause)}`, {
      cause,
    });
    this.name = 'BusUnavailableError';
  }
}

function redactUrl(url: string): string {
  try {
    const u = new URL(url);
    if (u.password) u.password = '***';
    return u.toString();
  } catch {
    return '<invalid url>';
  }
}

/**
 * Connects to NATS. The first connection fails fast with a clear error; once connected, the
 * client reconnects forever so a NATS restart is ridden out.
 */
export async function connectBus(options: BusOptions): Promise<NatsConnection> {
  let nc: NatsConnection;
  try {
    nc = await connect({
      servers: options.url,
      name: options.name,
      timeout: options.connectTimeoutMs ?? 5_000,
      maxReconnectAttempts: -1,
      reconnectTimeWait: 250,
      ...(options.token ? { token: options.token } : {}),
    });
  } catch (err) {
    throw new BusUnavailableError(options.url, err);
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
