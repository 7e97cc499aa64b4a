import { create } from '@bufbuild/protobuf';
import { timestampFromDate } from '@bufbuild/protobuf/wkt';
import { Client, credentials, Metadata, Server, ServerCredentials } from '@grpc/grpc-js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { HealthCheckResponse_ServingStatus as ServingStatus } from '../src/gen/grpc/health/v1/index.js';
import { Health } from '../src/gen/grpc/health/v1/index.js';
import { RegistryService, ResourceVersionSchema } from '../src/gen/tollgate/registry/v1/index.js';
import {
  addService,
  checkHealth,
  createClient,
  isRpcError,
  RpcError,
  RpcStatus,
  serveHealth,
} from '../src/index.js';
import type { HealthReporter, RpcClient, RpcContext, ServiceImpl } from '../src/index.js';

const TRACEPARENT = '00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01';

const canned = create(ResourceVersionSchema, {
  tenant: 'team-a',
  environment: 'prod',
  name: 'es_orders',
  version: 3,
  descriptor: {
    apiVersion: 'tollgate.dev/v1',
    kind: 'Resource',
    metadata: { name: 'es_orders', labels: { domain: 'orders' } },
  },
  createdAt: timestampFromDate(new Date('2025-01-02T03:04:05Z')),
  createdBy: 'operator',
  contentHash: 'sha256:1234',
});

class OrderNotFound extends Error {}

/** What handlers saw, for assertions. */
const seen: { context?: RpcContext; aborted?: boolean; unexpected: unknown[] } = { unexpected: [] };

function unimplemented(): never {
  throw new RpcError(RpcStatus.UNIMPLEMENTED, 'not part of this test');
}

const registry: ServiceImpl<typeof RegistryService> = {
  async get(request, context) {
    seen.context = context;
    switch (request.name) {
      case 'es_orders':
        return { resource: canned };
      case 'slow':
        await new Promise<void>((resolve) =>
          context.signal.addEventListener('abort', () => resolve()),
        );
        seen.aborted = context.signal.aborted;
        return { resource: canned };
      case 'conflict':
        throw new RpcError(RpcStatus.FAILED_PRECONDITION, 'version 2 is not current', {
          tollgateCode: 'VERSION_CONFLICT',
          details: [{ path: 'version', message: 'is stale', expected: '3', found: '2' }],
        });
      case 'mapped':
        throw new OrderNotFound('order index missing');
      default:
        throw new Error('mongo password=hunter2 rejected');
    }
  },
  apply: unimplemented,
  list: unimplemented,
  history: unimplemented,
  rollback: unimplemented,
  delete: unimplemented,
  discover: unimplemented,
  draft: unimplemented,
  confirm: unimplemented,
  reject: unimplemented,
};

let server: Server;
let address: string;
let health: HealthReporter;
let client: RpcClient<typeof RegistryService>;

beforeAll(async () => {
  server = new Server();
  health = serveHealth(server);
  addService(server, RegistryService, registry, {
    mapError: (err) =>
      err instanceof OrderNotFound
        ? new RpcError(RpcStatus.NOT_FOUND, 'resource not found', { tollgateCode: 'NOT_FOUND' })
        : undefined,
    onUnexpectedError: (err) => seen.unexpected.push(err),
  });
  const port = await new Promise<number>((resolve, reject) =>
    server.bindAsync('127.0.0.1:0', ServerCredentials.createInsecure(), (err, bound) =>
      err ? reject(err) : resolve(bound),
    ),
  );
  address = `127.0.0.1:${port}`;
  client = createClient(RegistryService, address, {
    metadata: { authorization: 'Bearer token-123' },
  });
});

afterAll(async () => {
  client.close();
  await new Promise<void>((resolve) => server.tryShutdown(() => resolve()));
});

describe('grpc adapter', () => {
  it('grpc - a typed unary call returns the handler response', async () => {
    const response = await client.get({ tenant: 'team-a', environment: 'prod', name: 'es_orders' });
    expect(response.resource).toEqual(canned);
    expect(response.resource?.descriptor).toMatchObject({
      metadata: { labels: { domain: 'orders' } },
    });
  });

  it('grpc - traceparent and authorization metadata reach the handler', async () => {
    await client.get({ name: 'es_orders' }, { metadata: { traceparent: TRACEPARENT } });
    expect(seen.context?.bearerToken()).toBe('token-123');
    expect(seen.context?.traceparent()).toBe(TRACEPARENT);
    expect(seen.context?.method).toBe('/tollgate.registry.v1.RegistryService/Get');
    expect(seen.context?.deadline).toBeUndefined();
  });

  it('grpc - per-call metadata replaces the client default', async () => {
    await client.get({ name: 'es_orders' }, { metadata: { authorization: 'Bearer other' } });
    expect(seen.context?.bearerToken()).toBe('other');
  });

  it('grpc - an exceeded deadline is DEADLINE_EXCEEDED and aborts the handler signal', async () => {
    const started = Date.now();
    const error = await client.get({ name: 'slow' }, { deadlineMs: 200 }).catch((e: unknown) => e);
    expect(isRpcError(error) && error.code).toBe(RpcStatus.DEADLINE_EXCEEDED);
    const deadline = seen.context?.deadline?.getTime() ?? 0;
    expect(deadline).toBeGreaterThanOrEqual(started + 100);
    expect(deadline).toBeLessThanOrEqual(Date.now() + 200);
    await expect.poll(() => seen.aborted).toBe(true);
  });

  it('grpc - a thrown RpcError arrives with its tollgate code and details', async () => {
    const error = await client.get({ name: 'conflict' }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(RpcError);
    expect(error).toMatchObject({
      code: RpcStatus.FAILED_PRECONDITION,
      message: 'version 2 is not current',
      tollgateCode: 'VERSION_CONFLICT',
      details: [{ path: 'version', message: 'is stale', expected: '3', found: '2' }],
    });
  });

  it('grpc - mapError turns a domain error into its RpcError', async () => {
    const error = await client.get({ name: 'mapped' }).catch((e: unknown) => e);
    expect(error).toMatchObject({
      code: RpcStatus.NOT_FOUND,
      message: 'resource not found',
      tollgateCode: 'NOT_FOUND',
    });
  });

  it('grpc - an unknown error is INTERNAL with a generic message and is reported', async () => {
    const error = await client.get({ name: 'boom' }).catch((e: unknown) => e);
    expect(error).toMatchObject({ code: RpcStatus.INTERNAL, message: 'internal error' });
    expect(JSON.stringify(error)).not.toContain('hunter2');
    expect((error as RpcError).tollgateCode).toBeUndefined();
    expect(String(seen.unexpected.at(-1))).toContain('hunter2');
  });

  it('grpc - an aborted signal cancels the call', async () => {
    const controller = new AbortController();
    const pending = client.get({ name: 'slow' }, { signal: controller.signal });
    setTimeout(() => controller.abort(), 50);
    await expect(pending).rejects.toMatchObject({ code: RpcStatus.CANCELLED });
  });

  it('grpc - an undecodable request is INVALID_ARGUMENT', async () => {
    const raw = new Client(address, credentials.createInsecure());
    const error = await new Promise<unknown>((resolve) =>
      raw.makeUnaryRequest(
        '/tollgate.registry.v1.RegistryService/Get',
        () => Buffer.from([0x0a, 0xff, 0xff]),
        (b: Buffer) => b,
        {},
        new Metadata(),
        {},
        (err) => resolve(err),
      ),
    );
    raw.close();
    expect(error).toMatchObject({ code: RpcStatus.INVALID_ARGUMENT });
  });
});

describe('grpc health', () => {
  const service = 'tollgate.registry.v1.RegistryService';

  it('grpc health - the server is SERVING and per-service status is settable', async () => {
    expect(await checkHealth(address)).toBe(ServingStatus.SERVING);
    health.setStatus(service, ServingStatus.NOT_SERVING);
    expect(await checkHealth(address, service)).toBe(ServingStatus.NOT_SERVING);
  });

  it('grpc health - an unknown service is NOT_FOUND', async () => {
    await expect(checkHealth(address, 'nope')).rejects.toMatchObject({ code: RpcStatus.NOT_FOUND });
  });

  it('grpc health - Watch streams the current status and each change', async () => {
    const watcher = createClient(Health, address);
    const controller = new AbortController();
    const statuses: ServingStatus[] = [];
    health.setStatus(service, ServingStatus.SERVING);
    try {
      for await (const update of watcher.watch({ service }, { signal: controller.signal })) {
        statuses.push(update.status);
        if (statuses.length === 1) health.setStatus(service, ServingStatus.NOT_SERVING);
        if (statuses.length === 2) break;
      }
    } finally {
      controller.abort();
      watcher.close();
    }
    expect(statuses).toEqual([ServingStatus.SERVING, ServingStatus.NOT_SERVING]);
  });

  it('grpc health - checkHealth on a closed port is UNAVAILABLE', async () => {
    const error = await checkHealth('127.0.0.1:1', '', { deadlineMs: 2000 }).catch(
      (e: unknown) => e,
    );
    expect(isRpcError(error) && error.code).toBe(RpcStatus.UNAVAILABLE);
  });
});
