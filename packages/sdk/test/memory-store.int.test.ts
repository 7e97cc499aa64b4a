import { create } from '@bufbuild/protobuf';
import type { JsonObject } from '@bufbuild/protobuf';
import { RpcError, RpcStatus } from '@tollgate/contracts';
import type { RpcContext } from '@tollgate/contracts';
import {
  MemoryService,
  SessionOutcome,
  SessionSchema,
  SessionStatus,
} from '@tollgate/contracts/memory/v1';
import type { EndSessionRequest, Session } from '@tollgate/contracts/memory/v1';
import type { NatsConnection } from '@nats-io/transport-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  DeniedError,
  MemoryServiceSessionStore,
  TollgateClient,
  readSnapshot,
  runAgent,
} from '../src/index.js';
import { createDemoScript, startScriptedModelServer } from '../src/demo.js';
import { principalToken, searchSchema, uniqueName } from './support/fixtures.js';
import { startNatsServer } from '../../../test/support/nats-server.js';
import type { NatsServer } from '../../../test/support/nats-server.js';
import { startStandIn } from './support/grpc-standin.js';
import type { StandInServer } from './support/grpc-standin.js';
import { CallStatus, StandInServices } from './support/standin-services.js';

const tenant = uniqueName('t').replaceAll('_', '-');
const principal = { tenant, agent: 'support_bot', environment: 'prod' };
const token = principalToken(principal);
const resource = uniqueName('orders');

const sessions = new Map<string, Session>();
const ends: EndSessionRequest[] = [];
/** Session ids whose EndSession the stand-in fails, as an unreachable service would. */
const unreachableEnds = new Set<string>();
let memory: StandInServer;
let nats: NatsServer;
let nc: NatsConnection;
let standIn: StandInServices;

function authorize(context: RpcContext): void {
  if (context.bearerToken() !== token) {
    throw new RpcError(RpcStatus.UNAUTHENTICATED, 'the token was not accepted', {
      tollgateCode: 'UNAUTHENTICATED',
    });
  }
}

beforeAll(async () => {
  // STAND-IN for services/memory: GetSession / PutSession with compare-and-set on the version,
  // EndSession recording what it was asked and proposing a skill candidate.
  memory = await startStandIn(MemoryService, {
    getSession: (request, context) => {
      authorize(context);
      const session = sessions.get(request.sessionId);
      if (session === undefined) {
        throw new RpcError(RpcStatus.NOT_FOUND, `no session ${request.sessionId}`, {
          tollgateCode: 'NOT_FOUND',
        });
      }
      return { session };
    },
    putSession: (request, context) => {
      authorize(context);
      const current = sessions.get(request.sessionId)?.version ?? 0;
      if (request.expectedVersion !== undefined && request.expectedVersion !== current) {
        throw new RpcError(RpcStatus.ABORTED, `session is at version ${current}`, {
          tollgateCode: 'VERSION_CONFLICT',
        });
      }
      const session = create(SessionSchema, {
        tenant,
        sessionId: request.sessionId,
        agent: principal.agent,
        version: current + 1,
        state: request.state ?? {},
      });
      sessions.set(request.sessionId, session);
      return { session, redactedPaths: [] };
    },
    endSession: (request, context) => {
      authorize(context);
      ends.push(request);
      if (unreachableEnds.has(request.sessionId)) {
        throw new RpcError(RpcStatus.UNAVAILABLE, 'memory is restarting', {
          tollgateCode: 'UPSTREAM_UNAVAILABLE',
        });
      }
      const current = sessions.get(request.sessionId)!;
      const session = create(SessionSchema, {
        ...current,
        version: current.version + 1,
        status: SessionStatus.ENDED,
        outcome: request.outcome,
      });
      sessions.set(request.sessionId, session);
      return { session, skillCandidateId: 'cand-1' };
    },
  });
  nats = await startNatsServer();
  nc = await nats.connect('sdk-memory-test');
  standIn = new StandInServices({
    nc,
    token,
    principal,
    tools: [
      { name: `${resource}_search`, resource, operation: 'search', inputSchema: searchSchema() },
    ],
    onCall: () => ({ status: CallStatus.OK }),
  });
  await nc.flush();
});

afterAll(async () => {
  standIn?.close();
  await nc?.drain();
  await nats?.dispose();
  await memory?.close();
});

describe('memory store - gRPC sessions', () => {
  it('memory store - load of an unknown session is undefined; saves are compare-and-set', async () => {
    const store = new MemoryServiceSessionStore({ address: memory.address, token });
    try {
      const id = uniqueName('s');
      expect(await store.load(id)).toBeUndefined();
      const state: JsonObject = { format: 'x', nested: { list: [1, 'two', null, true] } };
      expect(await store.save(id, state, 0)).toBe(1);
      expect(await store.load(id)).toEqual({ snapshot: state, version: 1 });
      await expect(store.save(id, state, 0)).rejects.toMatchObject({
        code: 'VERSION_CONFLICT',
        category: 'fix_arguments',
      });
    } finally {
      store.close();
    }
  });

  it('memory store - a refused token is a DeniedError', async () => {
    const store = new MemoryServiceSessionStore({ address: memory.address, token: 'nope' });
    try {
      await expect(store.load('s')).rejects.toBeInstanceOf(DeniedError);
    } finally {
      store.close();
    }
  });

  it('memory store - the agent loop saves its snapshot through the memory service after each step', async () => {
    const store = new MemoryServiceSessionStore({ address: memory.address, token });
    const model = await startScriptedModelServer(createDemoScript());
    const client = TollgateClient.over(nc, { token });
    try {
      const sessionId = uniqueName('s');
      const run = await runAgent({
        client,
        llm: { baseURL: model.baseURL, model: model.model, maxRetries: 0 },
        task: 'order ORD-1000?',
        sessionId,
        memory: store,
        endSession: true,
      });
      expect(run.steps.map((s) => s.sessionVersion)).toEqual([1, 2]);
      const snapshot = readSnapshot(sessionId, sessions.get(sessionId)!.state!);
      expect(snapshot).toMatchObject({ status: 'answered', steps: 2, task: 'order ORD-1000?' });
      // The model answered: the run ends the session as succeeded, from the version it saved.
      expect(ends.filter((e) => e.sessionId === sessionId)).toMatchObject([
        { outcome: SessionOutcome.SUCCEEDED, expectedVersion: 2 },
      ]);
      expect(run.sessionEnd).toEqual({
        outcome: 'succeeded',
        version: 3,
        skillCandidateId: 'cand-1',
      });
      expect(run.sessionVersion).toBe(3);
      // An ended session reads back as ended, and the loop takes no more runs on it.
      expect(await store.load(sessionId)).toMatchObject({ ended: { outcome: 'succeeded' } });
      await expect(
        runAgent({
          client,
          llm: { baseURL: model.baseURL, model: model.model, maxRetries: 0 },
          task: 'again',
          sessionId,
          memory: store,
        }),
      ).rejects.toMatchObject({ code: 'VERSION_CONFLICT' });
    } finally {
      await client.close();
      await model.close();
      store.close();
    }
  });

  it('memory store - a session that cannot be ended is reported, and the run still succeeds', async () => {
    const store = new MemoryServiceSessionStore({ address: memory.address, token });
    const model = await startScriptedModelServer(createDemoScript());
    const client = TollgateClient.over(nc, { token });
    try {
      const sessionId = uniqueName('s');
      unreachableEnds.add(sessionId);
      const warnings: string[] = [];
      const run = await runAgent({
        client,
        llm: { baseURL: model.baseURL, model: model.model, maxRetries: 0 },
        task: 'order ORD-1000?',
        sessionId,
        memory: store,
        endSession: true,
        onWarning: (message) => warnings.push(message),
      });
      expect(run.status).toBe('answered');
      expect(run.sessionVersion).toBe(2);
      expect(warnings).toEqual([
        expect.stringContaining(`could not end session ${sessionId} as succeeded`) as string,
      ]);
      expect(run.sessionEnd).toMatchObject({
        outcome: 'succeeded',
        error: expect.stringContaining('memory is restarting') as string,
      });
    } finally {
      await client.close();
      await model.close();
      store.close();
    }
  });
});
