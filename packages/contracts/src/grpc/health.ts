import { status } from '@grpc/grpc-js';
import type { Server } from '@grpc/grpc-js';
import type { MessageInitShape } from '@bufbuild/protobuf';
import { Health, HealthCheckResponse_ServingStatus } from '../gen/grpc/health/v1/health_pb.js';
import type {
  HealthCheckRequest,
  HealthCheckResponseSchema,
} from '../gen/grpc/health/v1/health_pb.js';
import { createClient } from './client.js';
import type { ClientOptions } from './client.js';
import type { RpcContext } from './context.js';
import { RpcError } from './errors.js';
import { addService } from './server.js';

type ServingStatus = HealthCheckResponse_ServingStatus;
type HealthCheckResponseInit = MessageInitShape<typeof HealthCheckResponseSchema>;

const { SERVING, SERVICE_UNKNOWN } = HealthCheckResponse_ServingStatus;

/** The serving status a server reports per service name (`''` is the server as a whole). */
export interface HealthReporter {
  /** Sets the status of `service`; Watch streams see the change. */
  setStatus(service: string, status: ServingStatus): void;
  /** The current status of `service`, or undefined when it was never set. */
  getStatus(service: string): ServingStatus | undefined;
}

/** Options of `checkHealth`. */
export interface CheckHealthOptions extends ClientOptions {
  /** Default 5000. */
  deadlineMs?: number;
}

/**
 * Serves grpc.health.v1 (Check and Watch) on `server`. The whole server (`''`) starts as
 * SERVING unless `initial` says otherwise; an unknown service answers NOT_FOUND on Check and
 * SERVICE_UNKNOWN on Watch, as the protocol requires.
 */
export function serveHealth(
  server: Server,
  initial: Record<string, ServingStatus> = { '': SERVING },
): HealthReporter {
  const statuses = new Map(Object.entries(initial));
  const watchers = new Set<(service: string) => void>();

  async function* watch(
    request: HealthCheckRequest,
    context: RpcContext,
  ): AsyncGenerator<HealthCheckResponseInit> {
    const pending: ServingStatus[] = [];
    let wake: (() => void) | undefined;
    const onChange = (service: string): void => {
      if (service !== request.service) return;
      pending.push(statuses.get(service) ?? SERVICE_UNKNOWN);
      wake?.();
    };
    const onAbort = (): void => wake?.();
    watchers.add(onChange);
    context.signal.addEventListener('abort', onAbort);
    try {
      yield { status: statuses.get(request.service) ?? SERVICE_UNKNOWN };
      while (!context.signal.aborted) {
        const next = pending.shift();
        if (next !== undefined) {
          yield { status: next };
          continue;
        }
        await new Promise<void>((resolve) => (wake = resolve));
        wake = undefined;
      }
    } finally {
      watchers.delete(onChange);
      context.signal.removeEventListener('abort', onAbort);
    }
  }

  addService(server, Health, {
    check: (request) => {
      const current = statuses.get(request.service);
      if (current === undefined) {
        throw new RpcError(status.NOT_FOUND, `unknown service "${request.service}"`);
      }
      return { status: current };
    },
    watch,
  });

  return {
    setStatus(service, value) {
      if (statuses.get(service) === value) return;
      statuses.set(service, value);
      for (const notify of watchers) notify(service);
    },
    getStatus: (service) => statuses.get(service),
  };
}

/**
 * Asks the server at `address` for the serving status of `service` (`''` = the whole server).
 * Rejects with `RpcError` (NOT_FOUND for an unknown service, UNAVAILABLE when unreachable).
 */
export async function checkHealth(
  address: string,
  service = '',
  options: CheckHealthOptions = {},
): Promise<ServingStatus> {
  const client = createClient(Health, address, options);
  try {
    const response = await client.check({ service }, { deadlineMs: options.deadlineMs ?? 5000 });
    return response.status;
  } finally {
    client.close();
  }
}
