/**
 * Test harness: the policy service on the real MongoDB (a fresh database) and NATS (its own
 * KV buckets and durable consumer), served over gRPC on a free port, plus an issuer whose
 * tokens it trusts. Resources are put into the resources bucket as the registry would.
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { create } from '@bufbuild/protobuf';
import type { MessageInitShape } from '@bufbuild/protobuf';
import { timestampFromDate } from '@bufbuild/protobuf/wkt';
import { Server } from '@grpc/grpc-js';
import { DeliverPolicy, jetstream, jetstreamManager } from '@nats-io/jetstream';
import type { ConsumerMessages } from '@nats-io/jetstream';
import type { NatsConnection } from '@nats-io/transport-node';
import { createClient } from '@tollgate/contracts';
import type { RpcClient } from '@tollgate/contracts';
import type { EventEnvelope } from '@tollgate/contracts/events/v1';
import { ApprovalSchema, ApprovalStatus, PolicyService } from '@tollgate/contracts/policy/v1';
import { generateIssuerKeys, issuePrincipalToken } from '@tollgate/core';
import type { IssuerKeys, Principal, PublishedResource } from '@tollgate/core';
import {
  EVENTS_STREAM,
  EventPublisher,
  EventTypes,
  connectMongo,
  createLogger,
  decodeEnvelope,
  envelope,
  listenGrpc,
  loadTokenVerifier,
  policyBundleKey,
  publishEnvelope,
  resourceKey,
  subjects,
} from '@tollgate/kit';
import type { EventType, GrpcServerHandle, Logger, MongoHandle } from '@tollgate/kit';
import { approvalBindingHash, bundleText } from '@tollgate/policy';
import { infra, uniqueName } from '../../../test/support/infra.js';
import { registerPolicyApi, startPolicyService } from '../src/index.js';
import type { PolicyParts } from '../src/index.js';
import { connectTestBus } from '../../../test/support/bus.js';

export { eventually, infra, uniqueName } from '../../../test/support/infra.js';
export { publishedResource } from './fixtures.js';

export const logger: Logger = createLogger({ service: 'policy-test', level: 'silent' });

/** A tenant name no other run uses. */
export function uniqueTenant(): string {
  return `t${Date.now().toString(36)}${Math.random().toString(36).slice(2, 7)}`;
}

export interface HarnessOptions {
  clock?: () => Date;
  approvalSweepIntervalMs?: number;
  approvalTtlMs?: number;
}

export interface Harness {
  mongo: MongoHandle;
  nc: NatsConnection;
  parts: PolicyParts;
  client: RpcClient<typeof PolicyService>;
  keys: IssuerKeys;
  durable: string;
  /** The KV bucket the service publishes its bundles to. */
  bundlesBucket: string;
  /** Call options carrying a token for `principal`. */
  as(principal: Principal): Promise<{ metadata: Record<string, string> }>;
  /** Puts a resource into the resources bucket, as the registry projects it. */
  putResource(resource: PublishedResource): Promise<void>;
  deleteResource(resource: PublishedResource): Promise<void>;
  /**
   * The tenant's bundle of `environment` as KV holds it (default `prod`, the fixtures'; null:
   * the bundle without resources); undefined when none.
   */
  bundleInKv(
    tenant: string,
    environment?: string | null,
  ): Promise<{ version: number; hash: string; policies: { id: string }[] } | undefined>;
  /** Another instance of the service on the same database and buckets (its own durable consumer). */
  startAnother(): Promise<PolicyParts>;
  /**
   * Document counts of `tenant` in the collections of the service that hold any (per tenant:
   * the tests of a file share the database).
   */
  counts(tenant: string): Promise<Record<string, number>>;
  close(): Promise<void>;
}

export async function startHarness(options: HarnessOptions = {}): Promise<Harness> {
  const dbName = uniqueName('policy_test');
  const mongo = await connectMongo(`${infra.mongoUrl}/${dbName}`);
  const nc = await connectTestBus({ url: infra.natsUrl, name: 'policy-test' });
  const keys = await generateIssuerKeys('policy-test');
  const dir = await mkdtemp(join(tmpdir(), 'policy-issuers-'));
  const issuersFile = join(dir, 'issuers.json');
  await writeFile(issuersFile, JSON.stringify(keys));
  const verifier = await loadTokenVerifier(issuersFile);
  const durable = uniqueName('policy_approvals');
  const resourcesBucket = uniqueName('pol_res');
  const bundlesBucket = uniqueName('pol_bundles');
  const durables = [durable];
  const others: PolicyParts[] = [];
  const start = (approvalsDurable: string) =>
    startPolicyService({
      db: mongo.db,
      nc,
      logger,
      approvalTtlMs: options.approvalTtlMs ?? 30 * 60_000,
      approvalSweepIntervalMs: options.approvalSweepIntervalMs ?? 0,
      approvalsDurable,
      approvalsReplayMs: 0,
      bundleWindowMs: 50,
      reconcileIntervalMs: 0,
      resourcesBucket,
      bundlesBucket,
      ...(options.clock ? { clock: options.clock } : {}),
    });
  const parts = await start(durable);
  // The first reconcile pass runs in the background; let it finish before tests start.
  await parts.bundles.reconcile();
  const server = new Server();
  registerPolicyApi(server, {
    declarations: parts.declarations,
    decisions: parts.decisions,
    approvals: parts.approvals,
    verifier,
    logger,
  });
  const grpc: GrpcServerHandle = await listenGrpc(server, '127.0.0.1:0', 'test');
  const client = createClient(PolicyService, `127.0.0.1:${grpc.port}`, {
    defaultDeadlineMs: 30_000,
  });
  return {
    mongo,
    nc,
    parts,
    client,
    keys,
    durable,
    bundlesBucket,
    as: async (principal) => ({
      metadata: { authorization: `Bearer ${await issuePrincipalToken(keys, principal)}` },
    }),
    startAnother: async () => {
      const other = uniqueName('policy_approvals');
      durables.push(other);
      const instance = await start(other);
      others.push(instance);
      return instance;
    },
    putResource: async (r) => {
      await parts.resourcesKv.put(resourceKey(r.tenant, r.environment, r.name), JSON.stringify(r));
    },
    deleteResource: async (r) => {
      await parts.resourcesKv.delete(resourceKey(r.tenant, r.environment, r.name));
    },
    bundleInKv: async (tenant, environment = 'prod') => {
      const entry = await parts.bundlesKv.get(policyBundleKey(tenant, environment ?? undefined));
      if (entry === null || entry.operation !== 'PUT') return undefined;
      return JSON.parse(bundleText(entry.value));
    },
    counts: async (tenant) => {
      const out: Record<string, number> = {};
      for (const c of await mongo.db.listCollections().toArray()) {
        const n = await mongo.db.collection(c.name).countDocuments({ tenant });
        if (n > 0) out[c.name] = n;
      }
      return out;
    },
    close: async () => {
      client.close();
      await grpc.stop();
      for (const other of others) await other.stop();
      await parts.stop();
      await parts.bundlesKv.destroy().catch(() => false);
      await parts.resourcesKv.destroy().catch(() => false);
      const jsm = await jetstreamManager(nc);
      for (const name of durables)
        await jsm.consumers.delete(EVENTS_STREAM, name).catch(() => false);
      await nc.drain();
      await mongo.db.dropDatabase();
      await mongo.close();
      await rm(dir, { recursive: true, force: true });
    },
  };
}

export function agentDescriptor(
  tenant: string,
  name: string,
  roles: string[],
  extra: Record<string, unknown> = {},
): Record<string, unknown> {
  return {
    apiVersion: 'tollgate.dev/v1',
    kind: 'Agent',
    metadata: { name, tenant },
    spec: { roles, ...extra },
  };
}

export function policyDescriptor(
  tenant: string,
  name: string,
  spec: Record<string, unknown>,
): Record<string, unknown> {
  return { apiVersion: 'tollgate.dev/v1', kind: 'Policy', metadata: { name, tenant }, spec };
}

/** Principals of one tenant used across the suites. */
export function cast(tenant: string) {
  return {
    /** Bootstraps the tenant: admin and approver. */
    operator: { tenant, agent: 'operator', environment: 'prod' } as Principal,
    /** A human approver through the console. */
    alice: { tenant, agent: 'ops-console', environment: 'prod', user: 'alice' } as Principal,
    bob: { tenant, agent: 'ops-console', environment: 'prod', user: 'bob' } as Principal,
    support: { tenant, agent: 'support_bot', environment: 'prod' } as Principal,
    ops: { tenant, agent: 'ops_bot', environment: 'prod', user: 'bob' } as Principal,
  };
}

/**
 * Collects events of `types` published from now on (ordered, ephemeral consumers; one per type,
 * as the local nats-server predates multi-subject filters).
 */
export async function watchEvents(
  nc: NatsConnection,
  types: EventType[],
): Promise<{ events: EventEnvelope[]; stop(): Promise<void> }> {
  const events: EventEnvelope[] = [];
  const feeds: { messages: ConsumerMessages; done: Promise<void> }[] = [];
  for (const type of types) {
    const consumer = await jetstream(nc).consumers.get(EVENTS_STREAM, {
      filter_subjects: subjects.eventsOf(type),
      deliver_policy: DeliverPolicy.New,
    });
    const messages: ConsumerMessages = await consumer.consume();
    const done = (async () => {
      for await (const message of messages) events.push(decodeEnvelope(message.data));
    })();
    feeds.push({ messages, done });
  }
  return {
    events,
    stop: async () => {
      for (const feed of feeds) {
        await feed.messages.close();
        await feed.done;
      }
    },
  };
}

/** What a parked call binds its approval to. */
export interface ParkedCall {
  principal: Principal;
  resource: string;
  resourceVersion: number;
  tool: string;
  args: Record<string, unknown>;
}

/**
 * Publishes `approval.requested` exactly as the executor does when it parks a call (see
 * docs/services.md); returns the approval id and binding hash.
 */
export async function requestApproval(
  nc: NatsConnection,
  call: ParkedCall,
  options: {
    expiresAt?: Date;
    id?: string;
    init?: Partial<MessageInitShape<typeof ApprovalSchema>>;
  } = {},
): Promise<{ id: string; hash: string; callId: string }> {
  const id = options.id ?? crypto.randomUUID();
  const callId = crypto.randomUUID();
  const hash = approvalBindingHash({
    principal: call.principal,
    resourceName: call.resource,
    resourceVersion: call.resourceVersion,
    tool: call.tool,
    args: call.args,
  });
  const now = new Date();
  const init: MessageInitShape<typeof ApprovalSchema> = {
    id,
    status: ApprovalStatus.PENDING,
    principal: {
      tenant: call.principal.tenant,
      agent: call.principal.agent,
      user: call.principal.user ?? '',
      environment: call.principal.environment,
    },
    resource: call.resource,
    resourceVersion: call.resourceVersion,
    tool: call.tool,
    argumentsHash: hash,
    requestedAt: timestampFromDate(now),
    expiresAt: timestampFromDate(options.expiresAt ?? new Date(now.getTime() + 30 * 60_000)),
    callId,
    sessionId: 'session-1',
    arguments: call.args as never,
    policyIds: ['policy/ops-write/grant/0'],
  };
  const approval = create(ApprovalSchema, {
    ...init,
    ...options.init,
  } as MessageInitShape<typeof ApprovalSchema>);
  await publishEnvelope(
    new EventPublisher(nc),
    envelope(EventTypes.approvalRequested, call.principal.tenant, {
      case: 'approvalRequested',
      value: { approval },
    }),
  );
  return { id, hash, callId };
}
