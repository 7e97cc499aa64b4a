/**
 * The tools playground: an agent's exact tools (as the synthesizer offers them to it), and a
 * call made as that agent — for the signed-in person — through the executor, like any agent's.
 */
import { randomBytes, randomUUID } from 'node:crypto';
import { create, fromBinary, toBinary } from '@bufbuild/protobuf';
import type { JsonObject } from '@bufbuild/protobuf';
import { headers as natsHeaders } from '@nats-io/transport-node';
import { CallRequestSchema, CallResultSchema } from '@tollgate/contracts/call/v1';
import { ListToolsResponseSchema } from '@tollgate/contracts/synthesizer/v1';
import { ToolFormat } from '@tollgate/contracts/tools/v1';
import type { ToolDefinition } from '@tollgate/contracts/tools/v1';
import { ERROR_HEADER, subjects } from '@tollgate/kit';
import type { Backend } from '../backend/backend.js';
import { json } from '../backend/backend.js';
import type { Session } from '../auth/sessions.js';
import { HttpProblem, badRequest } from '../http/problem.js';
import type { Route } from '../http/route.js';
import { idParam, nameParam, objectParam, textParam } from './params.js';

/** How long a playground call may take, ms. */
const CALL_TIMEOUT_MS = 30_000;

async function toolsOf(
  backend: Backend,
  session: Session,
  agent: string,
): Promise<ToolDefinition[]> {
  const reply = await backend.synthesizer.listTools(
    {
      format: ToolFormat.JSON_SCHEMA,
      principal: {
        tenant: session.tenant,
        agent,
        environment: backend.tokens.environment,
        user: session.operator.user,
      },
    },
    await backend.as(session, 'manage'),
  );
  return reply.tools;
}

/** Sends a protobuf request on the data plane as `agent`; the reply, or a clear failure. */
async function dataPlane(
  backend: Backend,
  session: Session,
  agent: string,
  subject: string,
  request: ReturnType<typeof create<typeof CallRequestSchema>>,
): Promise<ReturnType<typeof fromBinary<typeof CallResultSchema>> & { traceparent: string }> {
  const token = await backend.tokens.forAgent(session, agent);
  const hdrs = natsHeaders();
  hdrs.set('authorization', `Bearer ${token}`);
  const traceparent = `00-${randomBytes(16).toString('hex')}-${randomBytes(8).toString('hex')}-01`;
  hdrs.set('traceparent', traceparent);
  let reply;
  try {
    reply = await backend.nc.request(subject, toBinary(CallRequestSchema, request), {
      timeout: CALL_TIMEOUT_MS + 2_000,
      headers: hdrs,
    });
  } catch (err) {
    throw new HttpProblem(
      504,
      'UPSTREAM_TIMEOUT',
      `No executor answered on ${subject}: ${(err as Error).message}.`,
    );
  }
  const failure = reply.headers?.get(ERROR_HEADER);
  if (failure) {
    let parsed: { code?: string; message?: string; details?: [] } = {};
    try {
      parsed = JSON.parse(failure) as typeof parsed;
    } catch {
      // not JSON: the generic message below
    }
    throw new HttpProblem(
      400,
      parsed.code ?? 'INTERNAL',
      parsed.message ?? 'The executor refused the request.',
      parsed.details ?? [],
    );
  }
  return Object.assign(fromBinary(CallResultSchema, reply.data), { traceparent });
}

export const toolRoutes: Route[] = [
  {
    method: 'GET',
    path: '/api/tools',
    needs: 'manage',
    async handle({ url, session, backend }) {
      const agent = nameParam(url.searchParams.get('agent'), 'agent');
      return json(
        ListToolsResponseSchema,
        create(ListToolsResponseSchema, { tools: await toolsOf(backend, session, agent) }),
      );
    },
  },
  {
    method: 'POST',
    path: '/api/tools/call',
    needs: 'manage',
    async handle({ body, session, backend }) {
      const agent = nameParam(body.agent as string, 'agent');
      const name = textParam(body.tool, 'tool', 128);
      const tool = (await toolsOf(backend, session, agent)).find((t) => t.name === name);
      if (tool === undefined) {
        throw badRequest(`${agent} is not offered a tool named "${name}".`, [
          { path: 'tool', message: 'not one of the agent’s tools' },
        ]);
      }
      const callId = randomUUID();
      const idempotencyKey = textParam(body.idempotencyKey, 'idempotencyKey', 128);
      const sessionId = textParam(body.sessionId, 'sessionId', 128);
      if (sessionId !== '') idParam(sessionId, 'sessionId');
      const result = await dataPlane(
        backend,
        session,
        agent,
        tool.callSubject,
        create(CallRequestSchema, {
          callId,
          tool: tool.name,
          arguments: objectParam(body.arguments, 'arguments') as JsonObject,
          sessionId,
          idempotencyKey,
          timeoutMs: CALL_TIMEOUT_MS,
          toolVersion: tool.version,
        }),
      );
      return {
        callId,
        result: json(CallResultSchema, result),
        traceId: result.meta?.traceId || result.traceparent.split('-')[1],
      };
    },
  },
  {
    method: 'GET',
    path: '/api/tools/calls/:callId',
    needs: 'manage',
    async handle({ params, url, session, backend }) {
      const agent = nameParam(url.searchParams.get('agent'), 'agent');
      const callId = idParam(params.callId, 'callId');
      const result = await dataPlane(
        backend,
        session,
        agent,
        subjects.service('executor', 'call_result'),
        create(CallRequestSchema, { callId }),
      );
      return { callId, result: json(CallResultSchema, result) };
    },
  },
];
