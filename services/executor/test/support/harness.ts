import { Writable } from 'node:stream';
import { create, fromBinary, toBinary, toJson } from '@bufbuild/protobuf';
import type { JsonObject, JsonValue } from '@bufbuild/protobuf';
import { ValueSchema } from '@bufbuild/protobuf/wkt';
import { Client } from '@elastic/elasticsearch';
import type { NatsConnection, Subscription } from '@nats-io/transport-node';
import { elasticsearchConnector } from '@tollgate/connector-elasticsearch';
import { CallRequestSchema, CallResultSchema, CallStatus } from '@tollgate/contracts/call/v1';
import type { CallResult } from '@tollgate/contracts/call/v1';
import { ErrorCategory, ErrorCode } from '@tollgate/contracts/common/v1';
import type { EventEnvelope } from '@tollgate/contracts/events/v1';
import {
  TokenVerifier,
  UNRESTRICTED_CREDENTIAL_NAMESPACES,
  UNRESTRICTED_EGRESS_RULES,
  createConnectorRegistry,
  descriptorHash,
  generateIssuerKeys,
  issuePrincipalToken,
  memoryItemKey,
} from '@tollgate/core';
import type {
  CredentialNamespaces,
  EgressRules,
  IssuerKeys,
  Principal,
  PublishedMemoryItem,
  PublishedResource,
  ResourceDescriptor,
} from '@tollgate/core';
import {
  ERROR_HEADER,
  createCredentialResolver,
  createLogger,
  decodeEnvelope,
  openBucket,
  request,
  resourceKey,
  subjects,
} from '@tollgate/kit';
import type { AddressLookup, CredentialResolverOptions, KV } from '@tollgate/kit';
import { compileBundle } from '@tollgate/policy';
import { startExecutor } from '../../src/index.js';
import type { ExecutorBucketNames, ExecutorSettings, RunningExecutor } from '../../src/index.js';
import { ordersAgents, ordersPolicy } from '../../../../test/fixtures/orders.js';
import type { OrdersPolicyOptions } from '../../../../test/fixtures/orders.js';
import { startNatsServer } from '../../../../test/support/nats-server.js';
import type { NatsServer } from '../../../../test/support/nats-server.js';
import { operationsOf } from '@tollgate/kinds';

export const ES_URL = process.env['TOLLGATE_ES_URL'] ?? 'http://127.0.0.1:9200';
/** The shared, seeded orders index (rebuilt only when the fixture changes). */
export const ORDERS_INDEX = 'tollgate_fixture_orders';
export const TENANT = 'team-a';
export const ENV = 'prod';

/** A call's answer, readable in assertions. */
export interface Outcome {
  /** `ok`, `error`, `pending_approval`, `accepted` — or `rejected` for a `tollgate-error` header. */
  status: string;
  callId: string;
  data?: JsonValue;
  error?: { code: string; category: string; message: string; details: JsonObject[] };
  approvalId?: string;
  meta?: JsonObject;
  raw?: CallResult;
}

export interface CallOptions {
  token?: string | null;
  agent?: string;
  callId?: string;
  idempotencyKey?: string;
  timeoutMs?: number;
  toolVersion?: string;
  /** Resource name in the subject (default: the tool's prefix). */
  subjectResource?: string;
  kind?: string;
  /** How long the test waits for the answer. */
  waitMs?: number;
  sessionId?: string;
}

export interface HarnessOptions {
  settings?: Partial<ExecutorSettings>;
  /** How credential references are resolved (`env` for `env://`, `vault` for `vault://`). */
  credentials?: CredentialResolverOptions;
  /** Which references each tenant may name (default: unrestricted; namespace tests pass rules). */
  credentialNamespaces?: CredentialNamespaces;
  /** Which destinations each tenant may reach (default: unrestricted; egress tests pass rules). */
  egressRules?: EgressRules;
  /** How the executor resolves endpoint hosts (default: the system's resolver). */
  resolveHost?: AddressLookup;
  /** Start without an executor (tests that start their own). */
  noExecutor?: boolean;
  /** The bus to run on (e.g. a cluster); the caller disposes it. Default: a private server. */
  nats?: NatsServer;
}

export interface Harness {
  nats: NatsServer;
  nc: NatsConnection;
  es: Client;
  keys: IssuerKeys;
  verifier: TokenVerifier;
  bucketNames: ExecutorBucketNames;
  resourcesKv: KV;
  bundlesKv: KV;
  /** The memory bucket (saved queries, preferred fields) the executors follow. */
  memoryKv: KV;
  running: RunningExecutor | undefined;
  /** Every log line the in-process executor wrote. */
  logs: string[];
  /** Every event published on the private server, decoded, in arrival order. */
  events: EventEnvelope[];
  /** The same events as the bytes that were published. */
  eventBytes: Uint8Array[];
  token(
    agent: string,
    options?: { tenant?: string; environment?: string; ttlSeconds?: number; user?: string },
  ): Promise<string>;
  /** Puts a saved query or preferred fields into the memory bucket, under its own key. */
  putMemory(item: PublishedMemoryItem): Promise<void>;
  /** Removes a saved query or preferred fields from the memory bucket. */
  deleteMemory(item: PublishedMemoryItem): Promise<void>;
  publishResource(descriptor: ResourceDescriptor, version: number): Promise<PublishedResource>;
  publishBundle(
    resources: Array<{ descriptor: ResourceDescriptor; version: number }>,
    version: number,
    policy?: OrdersPolicyOptions,
  ): Promise<void>;
  call(tool: string, args: JsonObject, options?: CallOptions): Promise<Outcome>;
  poll(callId: string, agent?: string): Promise<Outcome>;
  eventOf(callId: string, type: string, status?: string): Promise<EventEnvelope>;
  startExecutor(settings?: Partial<ExecutorSettings>): Promise<RunningExecutor>;
  stop(): Promise<void>;
}

export const DEFAULT_SETTINGS: ExecutorSettings = {
  cursorKey: 'test-cursor-key',
  defaultCallTimeoutMs: 10_000,
  maxCallTimeoutMs: 60_000,
  acceptAfterMs: 0,
  maxResultBytes: 32_768,
  approvalTtlMs: 3_600_000,
};

/** Starts a private NATS, an in-process executor on it, and the helpers tests drive it with. */
export async function startHarness(options: HarnessOptions = {}): Promise<Harness> {
  const nats = options.nats ?? (await startNatsServer());
  const nc = await nats.connect('executor-test');
  const es = new Client({ node: ES_URL });
  const keys = await generateIssuerKeys('tollgate-test');
  const verifier = await TokenVerifier.create([{ issuer: keys.issuer, keys: [keys.publicJwk] }]);
  const bucketNames: ExecutorBucketNames = {
    resources: 'tollgate_resources',
    policyBundles: 'tollgate_policy_bundles',
    idempotency: 'tollgate_idempotency',
    rateLimits: 'tollgate_rate_limits',
    parkedCalls: 'tollgate_parked_calls',
    callResults: 'tollgate_call_results',
    memory: 'tollgate_memory',
    withdrawals: 'tollgate_withdrawals',
  };
  // As the services open them: with TOLLGATE_NATS_REPLICAS copies.
  const resourcesKv = await openBucket(nc, bucketNames.resources);
  const bundlesKv = await openBucket(nc, bucketNames.policyBundles);
  const memoryKv = await openBucket(nc, bucketNames.memory);
  const logs: string[] = [];
  const events: EventEnvelope[] = [];
  const eventBytes: Uint8Array[] = [];
  const eventSub: Subscription = nc.subscribe(subjects.allEvents, {
    callback: (err, msg) => {
      if (err) return;
      eventBytes.push(msg.data);
      events.push(decodeEnvelope(msg.data));
    },
  });
  const logger = createLogger({
    service: 'executor',
    level: 'debug',
    destination: new Writable({
      write(chunk: Buffer, _enc, done) {
        logs.push(chunk.toString());
        done();
      },
    }) as never,
  });
  const connectors = createConnectorRegistry([elasticsearchConnector]);
  const credentials = createCredentialResolver({
    env: {},
    cacheTtlMs: 5_000,
    ...options.credentials,
  });
  const executors: RunningExecutor[] = [];
  const connections: NatsConnection[] = [];

  const harness: Harness = {
    nats,
    nc,
    es,
    keys,
    verifier,
    bucketNames,
    resourcesKv,
    bundlesKv,
    memoryKv,
    running: undefined,
    logs,
    events,
    eventBytes,
    token: (agent, o = {}) =>
      issuePrincipalToken(
        keys,
        {
          tenant: o.tenant ?? TENANT,
          agent,
          environment: o.environment ?? ENV,
          ...(o.user ? { user: o.user } : {}),
        },
        o.ttlSeconds === undefined ? {} : { ttlSeconds: o.ttlSeconds },
      ),
    async putMemory(item) {
      await memoryKv.put(memoryItemKey(item), JSON.stringify(item));
    },
    async deleteMemory(item) {
      await memoryKv.delete(memoryItemKey(item));
    },
    async publishResource(descriptor, version) {
      const { tenant, environment, name } = descriptor.metadata;
      const published: PublishedResource = {
        tenant,
        environment,
        name,
        version,
        hash: descriptorHash(descriptor),
        descriptor,
        publishedAt: new Date().toISOString(),
      };
      await resourcesKv.put(resourceKey(tenant, environment, name), JSON.stringify(published));
      return published;
    },
    async publishBundle(resources, version, policy) {
      const tenant = resources[0]?.descriptor.metadata.tenant ?? TENANT;
      const compiled = compileBundle({
        tenant,
        version,
        agents: ordersAgents(tenant),
        policies: [
          ordersPolicy({ tenant, resource: resources[0]?.descriptor.metadata.name, ...policy }),
        ],
        resources: resources.map((r) => ({ ...r, operations: operationsOf(r.descriptor) })),
      });
      if (!compiled.ok) throw new Error(`bundle: ${JSON.stringify(compiled.problems)}`);
      await bundlesKv.put(tenant, JSON.stringify(compiled.bundle));
    },
    async call(tool, args, o = {}) {
      const token = o.token === undefined ? await harness.token(o.agent ?? 'support_bot') : o.token;
      const callId = o.callId ?? crypto.randomUUID();
      const body = create(CallRequestSchema, {
        callId,
        tool,
        arguments: args,
        sessionId: o.sessionId ?? 'session-1',
        idempotencyKey: o.idempotencyKey ?? '',
        timeoutMs: o.timeoutMs ?? 0,
        toolVersion: o.toolVersion ?? '',
      });
      const resource =
        o.subjectResource ?? tool.replace(/_(search|get|count|aggregate|write)$/, '');
      const reply = await request(
        nc,
        subjects.call(o.kind ?? 'elasticsearch', resource),
        toBinary(CallRequestSchema, body),
        {
          timeoutMs: o.waitMs ?? 20_000,
          headers: token === null ? {} : { authorization: `Bearer ${token}` },
        },
      );
      return readReply(reply.data, reply.headers?.get(ERROR_HEADER) ?? '', callId);
    },
    async poll(callId, agent = 'support_bot') {
      const reply = await request(
        nc,
        subjects.service('executor', 'call_result'),
        toBinary(CallRequestSchema, create(CallRequestSchema, { callId })),
        { timeoutMs: 10_000, headers: { authorization: `Bearer ${await harness.token(agent)}` } },
      );
      return readReply(reply.data, reply.headers?.get(ERROR_HEADER) ?? '', callId);
    },
    async eventOf(callId, type, status) {
      const deadline = Date.now() + 10_000;
      for (;;) {
        const found = events.find((e) => e.type === type && matches(e, callId, status));
        if (found) return found;
        if (Date.now() > deadline)
          throw new Error(`no ${type} event for ${callId} (${status ?? 'any'})`);
        await new Promise((r) => setTimeout(r, 20));
      }
    },
    async startExecutor(settings = {}) {
      const executorNc = await nats.connect('executor', 'executor');
      connections.push(executorNc);
      const started = await startExecutor({
        nc: executorNc,
        logger,
        verifier,
        connectors,
        credentials,
        credentialNamespaces: options.credentialNamespaces ?? UNRESTRICTED_CREDENTIAL_NAMESPACES,
        egressRules: options.egressRules ?? UNRESTRICTED_EGRESS_RULES,
        ...(options.resolveHost ? { resolveHost: options.resolveHost } : {}),
        settings: { ...DEFAULT_SETTINGS, ...settings },
        buckets: bucketNames,
      });
      // Stopping twice (a test stops one, then the harness stops them all) stops once.
      let stopping: Promise<void> | undefined;
      const running: RunningExecutor = { ...started, stop: () => (stopping ??= started.stop()) };
      executors.push(running);
      return running;
    },
    async stop() {
      for (const running of executors) await running.stop();
      for (const connection of connections) await connection.close();
      eventSub.unsubscribe();
      await nc.close();
      await connectors.close();
      await es.close();
      if (options.nats === undefined) await nats.dispose();
    },
  };
  if (!options.noExecutor) harness.running = await harness.startExecutor(options.settings);
  return harness;
}

function matches(e: EventEnvelope, callId: string, status?: string): boolean {
  const p = e.payload;
  if (p.case === 'callCompleted') {
    return (
      p.value.callId === callId && (status === undefined || CallStatus[p.value.status] === status)
    );
  }
  if (p.case === 'callDenied') return p.value.callId === callId;
  if (p.case === 'approvalRequested' || p.case === 'approvalDecided')
    return p.value.approval?.callId === callId;
  return false;
}

/** Reads a reply: a CallResult, or the `tollgate-error` header of a request that was no call. */
export function readReply(data: Uint8Array, errorHeader: string, callId: string): Outcome {
  if (errorHeader !== '') {
    const error = JSON.parse(errorHeader) as Outcome['error'];
    return { status: 'rejected', callId, ...(error ? { error } : {}) };
  }
  const result = fromBinary(CallResultSchema, data);
  return outcomeOf(result);
}

export function outcomeOf(result: CallResult): Outcome {
  const status = CallStatus[result.status].toLowerCase();
  const outcome: Outcome = { status, callId: result.callId, raw: result };
  if (result.data) outcome.data = toJson(ValueSchema, result.data);
  if (result.error) {
    outcome.error = {
      code: ErrorCode[result.error.code],
      category: ErrorCategory[result.error.category].toLowerCase(),
      message: result.error.message,
      details: result.error.details.map((d) => ({
        path: d.path,
        message: d.message,
        expected: d.expected,
        found: d.found,
      })),
    };
  }
  if (result.approvalId) outcome.approvalId = result.approvalId;
  if (result.meta) {
    const m = result.meta;
    outcome.meta = {
      resource: m.resource,
      resourceVersion: m.resourceVersion,
      tool: m.tool,
      toolVersion: m.toolVersion,
      latencyMs: m.latencyMs,
      upstreamStatus: m.upstreamStatus,
      returned: m.returned,
      ...(m.total !== undefined ? { total: m.total } : {}),
      truncated: m.truncated,
      bytes: m.bytes,
      traceId: m.traceId,
      nextCursor: m.nextCursor,
      defaultFields: [...m.defaultFields],
    };
  }
  return outcome;
}

/** The principal a token was issued for (tests compare events against it). */
export function principalOf(agent: string): Principal {
  return { tenant: TENANT, agent, environment: ENV };
}

/** The bytes of a CallRequest (suites outside the service encode through this). */
export function callRequestBytes(init: {
  callId?: string;
  tool: string;
  arguments?: JsonObject;
  timeoutMs?: number;
}): Uint8Array {
  return toBinary(CallRequestSchema, create(CallRequestSchema, init));
}

export type { JsonObject };
