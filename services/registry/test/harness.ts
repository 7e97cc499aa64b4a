/**
 * Test harness: a registry on the real MongoDB (a fresh database), NATS (its own KV bucket)
 * and Elasticsearch, served over gRPC on a free port, plus an issuer whose tokens it trusts.
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { JsonObject } from '@bufbuild/protobuf';
import { Server } from '@grpc/grpc-js';
import { DeliverPolicy, jetstream } from '@nats-io/jetstream';
import type { ConsumerMessages } from '@nats-io/jetstream';
import type { NatsConnection } from '@nats-io/transport-node';
import { createClient } from '@tollgate/contracts';
import type { RpcClient } from '@tollgate/contracts';
import type { EventEnvelope } from '@tollgate/contracts/events/v1';
import { RegistryService } from '@tollgate/contracts/registry/v1';
import { elasticsearchConnector } from '@tollgate/connector-elasticsearch';
import {
  UNRESTRICTED_CREDENTIAL_NAMESPACES,
  UNRESTRICTED_EGRESS_RULES,
  createConnectorRegistry,
  generateIssuerKeys,
  issuePrincipalToken,
} from '@tollgate/core';
import type {
  ConnectorRegistry,
  CredentialNamespaces,
  EgressRules,
  IssuerKeys,
  Principal,
} from '@tollgate/core';
import {
  EVENTS_STREAM,
  EventTypes,
  connectMongo,
  createCredentialResolver,
  createLogger,
  decodeEnvelope,
  listenGrpc,
  openBucket,
  loadTokenVerifier,
  subjects,
} from '@tollgate/kit';
import type { AddressLookup, GrpcServerHandle, Logger, MongoHandle } from '@tollgate/kit';
import { infra, uniqueName } from '../../../test/support/infra.js';
import { registerRegistryApi, startRegistry } from '../src/index.js';
import type { RegistryParts } from '../src/index.js';
import { connectTestBus } from '../../../test/support/bus.js';
import { declareAgents } from '../../../test/support/roles.js';

export { eventually, infra, uniqueName } from '../../../test/support/infra.js';

export const logger: Logger = createLogger({ service: 'registry-test', level: 'silent' });

/** A tenant name no other run uses. */
export function uniqueTenant(): string {
  return `t${Date.now().toString(36)}${Math.random().toString(36).slice(2, 7)}`;
}

export interface RegistryInstance {
  parts: RegistryParts;
  client: RpcClient<typeof RegistryService>;
  grpc: GrpcServerHandle;
  stop(): Promise<void>;
}

export interface Harness {
  mongo: MongoHandle;
  nc: NatsConnection;
  bucket: string;
  keys: IssuerKeys;
  /** The first registry instance. */
  parts: RegistryParts;
  client: RpcClient<typeof RegistryService>;
  /** Another registry instance on the same database and bucket. */
  startInstance(options?: InstanceOptions): Promise<RegistryInstance>;
  /**
   * Call options carrying a token for `principal`. Unless the harness reads roles from a policy
   * service (`roles` option), `principal`'s Agent is declared an admin of its tenant first.
   */
  as(principal: Principal): Promise<{ metadata: Record<string, string> }>;
  close(): Promise<void>;
}

export interface InstanceOptions {
  clock?: () => Date;
  draftTtlMs?: number;
  /** How long past expiry drafts are kept (default 24 h). */
  draftRetentionMs?: number;
  /** Pause between draft sweeps (default 0: no timer). */
  draftSweepIntervalMs?: number;
  /** Credential namespaces of this instance (default: the harness's). */
  credentialNamespaces?: CredentialNamespaces;
  /** Egress rules of this instance (default: the harness's). */
  egressRules?: EgressRules;
  /** How this instance resolves endpoint hosts (default: the system's resolver). */
  resolveHost?: AddressLookup;
}

export interface HarnessOptions {
  clock?: () => Date;
  draftTtlMs?: number;
  /** What `env://` references read (a test may pass a Proxy to see which variables are read). */
  env?: Record<string, string>;
  /** Default: unrestricted (tests of credential namespaces pass rules). */
  credentialNamespaces?: CredentialNamespaces;
  /** Default: unrestricted (tests of egress rules pass rules). */
  egressRules?: EgressRules;
  /** The issuer whose tokens the registry trusts (default: a fresh one). */
  keys?: IssuerKeys;
  /**
   * Where callers' roles come from: a policy service's bundles bucket. Default: the harness's
   * own bucket, where `as(principal)` declares the principal an admin.
   */
  roles?: { bundlesBucket: string };
  /** The kinds the registry knows (default: the Elasticsearch kind alone). */
  connectors?: ConnectorRegistry;
  /** The bus (e.g. a cluster's URLs and seeds; default: deploy/local's NATS). */
  bus?: { url: string; credentialsDir: string };
}

export async function startHarness(options: HarnessOptions = {}): Promise<Harness> {
  const dbName = uniqueName('registry_test');
  const mongo = await connectMongo(`${infra.mongoUrl}/${dbName}`);
  const nc = await connectTestBus({
    url: options.bus?.url ?? infra.natsUrl,
    name: 'registry-test',
    ...(options.bus ? { credentialsDir: options.bus.credentialsDir } : {}),
  });
  const bucket = uniqueName('reg_kv');
  const keys = options.keys ?? (await generateIssuerKeys('registry-test'));
  const dir = await mkdtemp(join(tmpdir(), 'registry-issuers-'));
  const issuersFile = join(dir, 'issuers.json');
  await writeFile(issuersFile, JSON.stringify(keys));
  const verifier = await loadTokenVerifier(issuersFile);
  const connectors = options.connectors ?? createConnectorRegistry([elasticsearchConnector]);
  const instances: RegistryInstance[] = [];
  const bundlesBucket = options.roles?.bundlesBucket ?? uniqueName('reg_bundles');
  const bundlesKv = await openBucket(nc, bundlesBucket);
  /** The harness's own declarations: tenant → agent → roles. */
  const declared = new Map<string, Record<string, readonly string[]>>();
  const declareAdmin = async (principal: Principal): Promise<void> => {
    if (options.roles !== undefined) return;
    const agents = declared.get(principal.tenant) ?? {};
    if (agents[principal.agent] !== undefined) return;
    agents[principal.agent] = ['admin'];
    declared.set(principal.tenant, agents);
    await declareAgents(bundlesKv, principal.tenant, agents);
  };

  const startInstance = async (o: InstanceOptions = {}): Promise<RegistryInstance> => {
    const clock = o.clock ?? options.clock;
    const parts = await startRegistry({
      db: mongo.db,
      nc,
      logger,
      connectors,
      credentials: createCredentialResolver({ env: options.env ?? {}, cacheTtlMs: 0 }),
      credentialNamespaces:
        o.credentialNamespaces ??
        options.credentialNamespaces ??
        UNRESTRICTED_CREDENTIAL_NAMESPACES,
      egressRules: o.egressRules ?? options.egressRules ?? UNRESTRICTED_EGRESS_RULES,
      ...(o.resolveHost === undefined ? {} : { resolveHost: o.resolveHost }),
      draftTtlMs: o.draftTtlMs ?? options.draftTtlMs ?? 3_600_000,
      reconcileIntervalMs: 0,
      ...(o.draftRetentionMs === undefined ? {} : { draftRetentionMs: o.draftRetentionMs }),
      draftSweepIntervalMs: o.draftSweepIntervalMs ?? 0,
      bucket,
      bundlesBucket,
      ...(clock === undefined ? {} : { clock }),
    });
    const server = new Server();
    registerRegistryApi(server, {
      registry: parts.registry,
      drafts: parts.drafts,
      verifier,
      roles: parts.roles,
      kinds: connectors.types(),
      logger,
    });
    const grpc = await listenGrpc(server, '127.0.0.1:0', 'test');
    const client = createClient(RegistryService, `127.0.0.1:${grpc.port}`, {
      defaultDeadlineMs: 30_000,
    });
    let stopped: Promise<void> | undefined;
    const instance = {
      parts,
      client,
      grpc,
      stop: () =>
        (stopped ??= (async () => {
          client.close();
          await grpc.stop();
          await parts.stop();
        })()),
    };
    instances.push(instance);
    return instance;
  };

  const first = await startInstance();
  return {
    mongo,
    nc,
    bucket,
    keys,
    parts: first.parts,
    client: first.client,
    startInstance,
    as: async (principal) => {
      await declareAdmin(principal);
      return {
        metadata: { authorization: `Bearer ${await issuePrincipalToken(keys, principal)}` },
      };
    },
    close: async () => {
      for (const instance of instances) await instance.stop();
      await first.parts.kv.destroy().catch(() => false);
      if (options.roles === undefined) await bundlesKv.destroy().catch(() => false);
      await connectors.close();
      await nc.drain();
      await mongo.db.dropDatabase();
      await mongo.close();
      await rm(dir, { recursive: true, force: true });
    },
  };
}

/** A valid Resource descriptor for `tenant`/`environment`, with overrides merged into spec. */
export function resourceDescriptor(
  tenant: string,
  name: string,
  options: {
    environment?: string;
    description?: string;
    labels?: Record<string, string>;
    index?: string;
    endpoint?: string;
  } = {},
): JsonObject {
  return {
    apiVersion: 'tollgate.dev/v1',
    kind: 'Resource',
    metadata: {
      name,
      tenant,
      environment: options.environment ?? 'prod',
      description: options.description ?? `Orders of ${tenant}`,
      ...(options.labels === undefined ? {} : { labels: options.labels }),
    },
    spec: {
      type: 'elasticsearch',
      connection: { endpoint: options.endpoint ?? 'http://es.internal:9200' },
      target: { index: options.index ?? 'orders' },
      schema: {
        fields: {
          id: { type: 'keyword', filterable: true, returnable: true },
          amount: { type: 'double', range: true, returnable: true },
        },
      },
      access: { allowedRoles: ['support'] },
    },
  };
}

/** Collects `resource.changed` events published from now on (an ordered, ephemeral consumer). */
export async function watchResourceEvents(nc: NatsConnection): Promise<{
  events: EventEnvelope[];
  stop(): Promise<void>;
}> {
  const consumer = await jetstream(nc).consumers.get(EVENTS_STREAM, {
    filter_subjects: subjects.eventsOf(EventTypes.resourceChanged),
    deliver_policy: DeliverPolicy.New,
  });
  const messages: ConsumerMessages = await consumer.consume();
  const events: EventEnvelope[] = [];
  const done = (async () => {
    for await (const message of messages) events.push(decodeEnvelope(message.data));
  })();
  return {
    events,
    stop: async () => {
      await messages.close();
      await done;
    },
  };
}
