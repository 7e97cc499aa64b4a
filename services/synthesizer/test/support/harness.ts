/**
 * A synthesizer running in this process against a nats-server of the test's own, writing
 * resources, compiled bundles and memory items straight into the KV buckets the registry, the
 * policy service and the memory service write; served over NATS and gRPC (free port), trusting
 * an issuer in a temp dir.
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { Server } from '@grpc/grpc-js';
import { create, fromBinary, toBinary } from '@bufbuild/protobuf';
import type { MessageInitShape } from '@bufbuild/protobuf';
import { headers as natsHeaders } from '@nats-io/transport-node';
import type { NatsConnection } from '@nats-io/transport-node';
import { createClient } from '@tollgate/contracts';
import type { RpcClient } from '@tollgate/contracts';
import {
  GetToolRequestSchema,
  GetToolResponseSchema,
  ListToolsRequestSchema,
  ListToolsResponseSchema,
  SynthesizerService,
} from '@tollgate/contracts/synthesizer/v1';
import type { ToolDefinition as WireTool } from '@tollgate/contracts/tools/v1';
import { generateIssuerKeys, issuePrincipalToken, memoryItemKey } from '@tollgate/core';
import type {
  IssuerKeys,
  Principal,
  PublishedMemoryItem,
  ResourceDescriptor,
} from '@tollgate/core';
import {
  ERROR_HEADER,
  buckets,
  createLogger,
  listenGrpc,
  loadTokenVerifier,
  openBucket,
  resourceKey,
} from '@tollgate/kit';
import type { GrpcServerHandle, KV, Logger } from '@tollgate/kit';
import type { PolicyBundle } from '@tollgate/policy';
import { getToolSubject, listToolsSubject, startSynthesizer } from '../../src/index.js';
import { eventually as poll } from '../../../../test/support/infra.js';

/** Polls `check` until it returns a value; generous by default (a loaded 2-core machine). */
export function eventually<T>(
  check: () => Promise<T | undefined> | T | undefined,
  timeoutMs = 30_000,
  stepMs = 50,
): Promise<T> {
  return poll(check, timeoutMs, stepMs);
}
import type { PreferenceSource, RunningSynthesizer } from '../../src/index.js';
import { published } from './fixtures.js';
import { startNatsServer } from '../../../../test/support/nats-server.js';
import type { NatsServer } from '../../../../test/support/nats-server.js';

export { uniqueName } from '../../../../test/support/infra.js';

/** The error a `tollgate-error` header carries. */
export interface WireError {
  code: string;
  category: string;
  message: string;
  details: { path: string; message: string; expected?: string; found?: string }[];
}

export type BusAnswer<T> = { ok: true; value: T } | { ok: false; error: WireError };

export interface Harness {
  nats: NatsServer;
  nc: NatsConnection;
  resources: KV;
  bundles: KV;
  /** The memory service's bucket of saved queries and preferred fields. */
  memory: KV;
  /** The executors' record of withdrawn operations. */
  withdrawals: KV;
  keys: IssuerKeys;
  running: RunningSynthesizer;
  grpc: GrpcServerHandle;
  client: RpcClient<typeof SynthesizerService>;
  /** Log lines the synthesizer wrote. */
  lines: Record<string, unknown>[];
  token(principal: Principal): Promise<string>;
  /** gRPC call options carrying a token for `principal`. */
  as(principal: Principal): Promise<{ metadata: Record<string, string> }>;
  putResource(descriptor: ResourceDescriptor, version: number): Promise<void>;
  deleteResource(tenant: string, environment: string, name: string): Promise<void>;
  /** Writes a bundle and (unless `loaded: false`) waits until the synthesizer holds it. */
  putBundle(bundle: PolicyBundle, options?: { loaded?: boolean }): Promise<void>;
  /** Writes a memory item under its own key, as the memory service projects it. */
  putMemory(item: PublishedMemoryItem): Promise<void>;
  deleteMemory(item: PublishedMemoryItem): Promise<void>;
  listTools(
    token: string | undefined,
    request: MessageInitShape<typeof ListToolsRequestSchema>,
  ): Promise<BusAnswer<WireTool[]>>;
  getTool(
    token: string | undefined,
    request: MessageInitShape<typeof GetToolRequestSchema>,
  ): Promise<BusAnswer<WireTool>>;
  /** A raw request on a synthesizer subject, for malformed payloads and headers. */
  raw(
    subject: string,
    data: Uint8Array,
    headers: Record<string, string>,
  ): Promise<BusAnswer<Uint8Array>>;
  close(): Promise<void>;
}

export interface HarnessOptions {
  preferences?: PreferenceSource;
  /** Watch the KV buckets (default true). */
  watch?: boolean;
  /** Withdrawal records (by key) written before the synthesizer starts, as executors write them. */
  withdrawn?: Record<string, unknown>;
}

export async function startHarness(options: HarnessOptions = {}): Promise<Harness> {
  const nats = await startNatsServer();
  const nc = await nats.connect('synthesizer-test');
  const resources = await openBucket(nc, buckets.resources);
  const bundles = await openBucket(nc, buckets.policyBundles);
  const memory = await openBucket(nc, buckets.memory);
  const withdrawals = await openBucket(nc, buckets.withdrawals);
  for (const [key, record] of Object.entries(options.withdrawn ?? {}))
    await withdrawals.put(key, JSON.stringify(record));
  const keys = await generateIssuerKeys('synthesizer-test');
  const dir = await mkdtemp(join(tmpdir(), 'synthesizer-issuers-'));
  const issuersFile = join(dir, 'issuers.json');
  await writeFile(issuersFile, JSON.stringify([{ issuer: keys.issuer, keys: [keys.publicJwk] }]));
  const verifier = await loadTokenVerifier(issuersFile);
  const { logger, lines } = capturedLogger();
  const server = new Server();
  const running = await startSynthesizer({
    nc,
    logger,
    verifier,
    grpcServer: server,
    ...(options.preferences !== undefined ? { preferences: options.preferences } : {}),
    ...(options.watch !== undefined ? { watch: options.watch } : {}),
  });
  const grpc = await listenGrpc(server, '127.0.0.1:0', 'test');
  const client = createClient(SynthesizerService, `127.0.0.1:${grpc.port}`, {
    defaultDeadlineMs: 30_000,
  });

  const raw = async (
    subject: string,
    data: Uint8Array,
    headers: Record<string, string>,
  ): Promise<BusAnswer<Uint8Array>> => {
    const hdrs = natsHeaders();
    for (const [k, v] of Object.entries(headers)) hdrs.set(k, v);
    const reply = await nc.request(subject, data, { timeout: 30_000, headers: hdrs });
    const failure = reply.headers?.get(ERROR_HEADER);
    if (failure) return { ok: false, error: JSON.parse(failure) as WireError };
    return { ok: true, value: reply.data };
  };
  const auth = (token: string | undefined): Record<string, string> =>
    token === undefined ? {} : { authorization: `Bearer ${token}` };

  return {
    nats,
    nc,
    resources,
    bundles,
    memory,
    withdrawals,
    keys,
    running,
    grpc,
    client,
    lines,
    token: (principal) => issuePrincipalToken(keys, principal),
    as: async (principal) => ({
      metadata: { authorization: `Bearer ${await issuePrincipalToken(keys, principal)}` },
    }),
    async putResource(descriptor, version) {
      const { tenant, environment, name } = descriptor.metadata;
      await resources.put(
        resourceKey(tenant, environment, name),
        JSON.stringify(published(descriptor, version)),
      );
    },
    async deleteResource(tenant, environment, name) {
      await resources.delete(resourceKey(tenant, environment, name));
    },
    async putBundle(bundle, { loaded = true } = {}) {
      await bundles.put(bundle.tenant, JSON.stringify(bundle));
      if (!loaded) return;
      // Loading a bundle blocks this process's event loop (Cedar preparsing is synchronous):
      // wait for it before anything else is sent, so no request times out behind it.
      await eventually(
        () => (running.synthesizer.bundles.hash(bundle.tenant) === bundle.hash ? true : undefined),
        120_000,
        50,
      );
    },
    async putMemory(item) {
      await memory.put(memoryItemKey(item), JSON.stringify(item));
    },
    async deleteMemory(item) {
      await memory.delete(memoryItemKey(item));
    },
    async listTools(token, request) {
      const answer = await raw(
        listToolsSubject,
        toBinary(ListToolsRequestSchema, create(ListToolsRequestSchema, request)),
        auth(token),
      );
      return answer.ok
        ? { ok: true, value: fromBinary(ListToolsResponseSchema, answer.value).tools }
        : answer;
    },
    async getTool(token, request) {
      const answer = await raw(
        getToolSubject,
        toBinary(GetToolRequestSchema, create(GetToolRequestSchema, request)),
        auth(token),
      );
      if (!answer.ok) return answer;
      const tool = fromBinary(GetToolResponseSchema, answer.value).tool;
      if (tool === undefined) throw new Error('get_tool answered without a tool');
      return { ok: true, value: tool };
    },
    raw,
    async close() {
      client.close();
      await grpc.stop();
      await running.stop();
      await nc.close();
      await nats.dispose();
      await rm(dir, { recursive: true, force: true });
    },
  };
}

/** A logger whose JSON lines a test can read back. */
export function capturedLogger(): { logger: Logger; lines: Record<string, unknown>[] } {
  const lines: Record<string, unknown>[] = [];
  const destination = new Writable({
    write(chunk: Buffer, _encoding, done) {
      for (const line of chunk.toString().split('\n')) if (line) lines.push(JSON.parse(line));
      done();
    },
  });
  return { logger: createLogger({ service: 'synthesizer', level: 'info', destination }), lines };
}

/** Tool names of a listing. */
export function names(tools: readonly WireTool[]): string[] {
  return tools.map((t) => t.name);
}

/** The value of a bus answer, or a failure naming the error. */
export function ok<T>(answer: BusAnswer<T>): T {
  if (!answer.ok) throw new Error(`expected success, got ${JSON.stringify(answer.error)}`);
  return answer.value;
}

/** The error of a bus answer, or a failure when it succeeded. */
export function failed<T>(answer: BusAnswer<T>): WireError {
  if (answer.ok) throw new Error('expected an error, got a reply');
  return answer.error;
}
