/**
 * Every service a call passes through, in this process, on a private NATS with the real subject
 * permissions (the executor harness's server, buckets and issuer): the registry (also served over
 * gRPC), the synthesizer, the executor and audit ingestion, all with every registered kind; and,
 * when asked, the policy service (compiling each tenant's bundle from what is declared, served
 * over gRPC) and the auth callout (so SDK clients connect with their own tokens).
 */
import { writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Server } from '@grpc/grpc-js';
import { createClient } from '@tollgate/contracts';
import type { RpcClient } from '@tollgate/contracts';
import { PolicyService } from '@tollgate/contracts/policy/v1';
import { RegistryService } from '@tollgate/contracts/registry/v1';
import {
  UNRESTRICTED_CREDENTIAL_NAMESPACES,
  UNRESTRICTED_EGRESS_RULES,
  issuePrincipalToken,
} from '@tollgate/core';
import type { Principal } from '@tollgate/core';
import { createConnectors } from '@tollgate/kinds';
import { connectMongo, createCredentialResolver, createLogger, listenGrpc } from '@tollgate/kit';
import type { MongoHandle } from '@tollgate/kit';
import { TollgateClient } from '@tollgate/sdk';
import {
  AuditIngest,
  AuditStore,
  AuditTrail,
  collections,
} from '../../../services/audit/src/index.js';
import { startExecutor } from '../../../services/executor/src/index.js';
import { DEFAULT_SETTINGS, startHarness } from '../../../services/executor/test/support/harness.js';
import type { Harness } from '../../../services/executor/test/support/harness.js';
import { registerPolicyApi, startPolicyService } from '../../../services/policy/src/index.js';
import { registerRegistryApi, startRegistry } from '../../../services/registry/src/index.js';
import type { RegistryParts } from '../../../services/registry/src/index.js';
import { startSynthesizer } from '../../../services/synthesizer/src/index.js';
import { startAuthCallout } from '../../support/bus.js';
import { infra, uniqueName } from '../../support/infra.js';

export interface ServicesOptions {
  /** Names the logger and the Mongo database (a fresh one, dropped at stop). */
  name: string;
  /** What `env://` credential references read (default: nothing). */
  env?: Record<string, string>;
  /** Start the policy service; without it a test puts each tenant's bundle itself. */
  policy?: boolean;
  /** Start the auth callout, for `connectAgent`. */
  agents?: boolean;
}

export interface Services {
  /** The private NATS, its buckets and issuer (`h.call` sends a raw CallRequest). */
  h: Harness;
  mongo: MongoHandle;
  registry: RegistryParts;
  registryClient: RpcClient<typeof RegistryService>;
  /** Undefined unless started with `policy`. */
  policyClient: RpcClient<typeof PolicyService> | undefined;
  trail: AuditTrail;
  /** gRPC call options carrying a token of `principal`. */
  as(principal: Principal): Promise<{ metadata: Record<string, string> }>;
  /** An SDK client of `principal`, connected to NATS with its own token (needs `agents`). */
  connectAgent(principal: Principal): Promise<TollgateClient>;
  /** Audit records as stored, matching a Mongo filter. */
  records(filter: Record<string, unknown>): Promise<Array<Record<string, unknown>>>;
  stop(): Promise<void>;
}

export async function startServices(options: ServicesOptions): Promise<Services> {
  const logger = createLogger({
    service: options.name,
    level: process.env.E2E_LOG ? 'debug' : 'silent',
  });
  const stops: Array<() => Promise<unknown>> = [];
  const stop = async () => {
    for (const s of stops.reverse()) await s().catch(() => undefined);
  };
  try {
    const h = await startHarness({ noExecutor: true });
    stops.push(() => h.stop());
    const mongo = await connectMongo(`${infra.mongoUrl}/${uniqueName(options.name)}`);
    stops.push(async () => {
      await mongo.db.dropDatabase();
      await mongo.close();
    });
    const credentials = createCredentialResolver({ env: options.env ?? {}, cacheTtlMs: 0 });
    const buckets = {
      resourcesBucket: h.bucketNames.resources,
      bundlesBucket: h.bucketNames.policyBundles,
    };
    const serve = async (register: (server: Server) => void): Promise<string> => {
      const server = new Server();
      register(server);
      const grpc = await listenGrpc(server, '127.0.0.1:0', 'test');
      stops.push(() => grpc.stop());
      return `127.0.0.1:${grpc.port}`;
    };

    let policyClient: RpcClient<typeof PolicyService> | undefined;
    if (options.policy === true) {
      const policy = await startPolicyService({
        db: mongo.db,
        nc: await h.nats.connect('policy', 'policy'),
        logger,
        approvalTtlMs: 600_000,
        approvalSweepIntervalMs: 0,
        approvalsDurable: 'policy-approvals',
        approvalsReplayMs: 0,
        bundleWindowMs: 50,
        reconcileIntervalMs: 0,
        ...buckets,
      });
      stops.push(() => policy.stop());
      const address = await serve((server) =>
        registerPolicyApi(server, { ...policy, verifier: h.verifier, logger }),
      );
      const client = createClient(PolicyService, address, { defaultDeadlineMs: 30_000 });
      stops.push(async () => client.close());
      policyClient = client;
    }

    const registryConnectors = createConnectors();
    stops.push(() => registryConnectors.close());
    const registry = await startRegistry({
      db: mongo.db,
      nc: await h.nats.connect('registry', 'registry'),
      logger,
      connectors: registryConnectors,
      credentials,
      credentialNamespaces: UNRESTRICTED_CREDENTIAL_NAMESPACES,
      egressRules: UNRESTRICTED_EGRESS_RULES,
      draftTtlMs: 60_000,
      reconcileIntervalMs: 0,
      draftSweepIntervalMs: 0,
      bucket: buckets.resourcesBucket,
      bundlesBucket: buckets.bundlesBucket,
    });
    stops.push(() => registry.stop());
    const registryAddress = await serve((server) =>
      registerRegistryApi(server, {
        registry: registry.registry,
        drafts: registry.drafts,
        verifier: h.verifier,
        roles: registry.roles,
        kinds: registryConnectors.types(),
        logger,
      }),
    );
    const registryClient = createClient(RegistryService, registryAddress, {
      defaultDeadlineMs: 30_000,
    });
    stops.push(async () => registryClient.close());

    const synthesizer = await startSynthesizer({
      nc: await h.nats.connect('synthesizer', 'synthesizer'),
      logger,
      verifier: h.verifier,
    });
    stops.push(() => synthesizer.stop());

    const executorConnectors = createConnectors();
    stops.push(() => executorConnectors.close());
    const executor = await startExecutor({
      nc: await h.nats.connect('executor', 'executor'),
      logger,
      verifier: h.verifier,
      connectors: executorConnectors,
      credentials,
      credentialNamespaces: UNRESTRICTED_CREDENTIAL_NAMESPACES,
      egressRules: UNRESTRICTED_EGRESS_RULES,
      settings: DEFAULT_SETTINGS,
      buckets: h.bucketNames,
    });
    stops.push(() => executor.stop());

    const store = new AuditStore(mongo.db);
    await store.ensureIndexes();
    const ingest = new AuditIngest({
      nc: await h.nats.connect('audit', 'audit'),
      store,
      logger,
      settings: {
        durable: 'audit',
        batchSize: 50,
        lingerMs: 10,
        ackWaitMs: 10_000,
        maxAckPending: 1_000,
        poisonDeliveries: 10,
        maxArgumentBytes: 8_192,
      },
    });
    await ingest.start();
    stops.push(() => ingest.stop());

    if (options.agents === true) {
      const issuersFile = join(tmpdir(), `${options.name}-issuer-${process.pid}.json`);
      await writeFile(issuersFile, JSON.stringify(h.keys), { mode: 0o600 });
      const callout = await startAuthCallout(h.nats.url, h.nats.credentialsDir, issuersFile);
      stops.push(() => callout.stop());
    }

    return {
      h,
      mongo,
      registry,
      registryClient,
      policyClient,
      trail: new AuditTrail({ store }),
      as: async (principal) => ({
        metadata: { authorization: `Bearer ${await issuePrincipalToken(h.keys, principal)}` },
      }),
      async connectAgent(principal) {
        const client = await TollgateClient.connect({
          natsUrl: h.nats.url,
          token: await issuePrincipalToken(h.keys, principal),
          timeoutMs: 15_000,
        });
        stops.push(() => client.close());
        return client;
      },
      records: (filter) => mongo.db.collection(collections.records).find(filter).toArray(),
      stop,
    };
  } catch (err) {
    await stop();
    throw err;
  }
}
