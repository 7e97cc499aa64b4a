/** Audit: query, one call's records, session replay, JSONL export, chain verification per tenant. */
import { timestampFromDate } from '@bufbuild/protobuf/wkt';
import {
  QueryResponseSchema,
  ReplaySessionResponseSchema,
  AuditRecordSchema,
} from '@tollgate/contracts/audit/v1';
import { CallStatus } from '@tollgate/contracts/call/v1';
import { json } from '../backend/backend.js';
import { badRequest } from '../http/problem.js';
import { STREAMED } from '../http/route.js';
import type { ApiContext, Route } from '../http/route.js';
import { idParam, optionalName, timeParam } from './params.js';

const STATUSES: Record<string, CallStatus> = {
  ok: CallStatus.OK,
  error: CallStatus.ERROR,
  pending_approval: CallStatus.PENDING_APPROVAL,
  accepted: CallStatus.ACCEPTED,
};
const TYPE = /^[a-z]+\.[a-z_]+$/;
/** Most records one export writes. */
const MAX_EXPORT = 50_000;

function queryOf({ url, session }: Pick<ApiContext, 'url' | 'session'>) {
  const q = url.searchParams;
  const status = q.get('status') ?? '';
  if (status !== '' && STATUSES[status] === undefined) {
    throw badRequest('status is not a call status.', [
      { path: 'status', message: 'unknown', expected: Object.keys(STATUSES).join(' | ') },
    ]);
  }
  const types = q.getAll('type').filter(Boolean);
  const badType = types.find((t) => !TYPE.test(t));
  if (badType !== undefined)
    throw badRequest('type is not an event type.', [
      { path: 'type', message: 'not an event type', expected: 'e.g. call.completed' },
    ]);
  const from = timeParam(q.get('from'), 'from');
  const to = timeParam(q.get('to'), 'to');
  const optionalId = (field: string) => (q.get(field) ? idParam(q.get(field), field) : '');
  return {
    tenant: session.tenant,
    types,
    agent: optionalName(q.get('agent'), 'agent'),
    resource: optionalName(q.get('resource'), 'resource'),
    tool: optionalName(q.get('tool'), 'tool'),
    sessionId: optionalId('sessionId'),
    callId: optionalId('callId'),
    status: STATUSES[status] ?? CallStatus.UNSPECIFIED,
    ...(from ? { from: timestampFromDate(from) } : {}),
    ...(to ? { to: timestampFromDate(to) } : {}),
  };
}

export const auditRoutes: Route[] = [
  {
    method: 'GET',
    path: '/api/audit',
    needs: 'read',
    async handle(ctx) {
      const reply = await ctx.backend.audit.query(
        { ...queryOf(ctx), pageSize: 100, pageToken: ctx.url.searchParams.get('pageToken') ?? '' },
        await ctx.backend.as(ctx.session, 'read'),
      );
      return json(QueryResponseSchema, reply);
    },
  },
  {
    method: 'GET',
    path: '/api/audit/export',
    needs: 'read',
    async handle(ctx) {
      const options = await ctx.backend.as(ctx.session, 'read');
      const query = queryOf(ctx);
      ctx.res.writeHead(200, {
        'content-type': 'application/x-ndjson; charset=utf-8',
        'content-disposition': `attachment; filename="audit-${ctx.session.tenant}.jsonl"`,
        'cache-control': 'no-store',
      });
      let pageToken = '';
      let written = 0;
      do {
        const page = await ctx.backend.audit.query({ ...query, pageSize: 500, pageToken }, options);
        for (const record of page.records) {
          ctx.res.write(`${JSON.stringify(json(AuditRecordSchema, record))}\n`);
          written += 1;
        }
        pageToken = page.nextPageToken;
      } while (pageToken !== '' && written < MAX_EXPORT);
      ctx.res.end();
      return STREAMED;
    },
  },
  {
    method: 'GET',
    path: '/api/audit/sessions/:id',
    needs: 'read',
    async handle({ params, session, backend }) {
      const reply = await backend.audit.replaySession(
        { tenant: session.tenant, sessionId: idParam(params.id, 'id'), pageSize: 500 },
        await backend.as(session, 'read'),
      );
      return json(ReplaySessionResponseSchema, reply);
    },
  },
  {
    method: 'GET',
    path: '/api/audit/sessions/:id/export',
    needs: 'read',
    async handle({ params, session, backend, res }) {
      const sessionId = idParam(params.id, 'id');
      const stream = backend.audit.exportSession(
        { tenant: session.tenant, sessionId },
        await backend.as(session, 'read'),
      );
      const iterator = stream[Symbol.asyncIterator]();
      const first = await iterator.next();
      res.writeHead(200, {
        'content-type': 'application/x-ndjson; charset=utf-8',
        'content-disposition': `attachment; filename="session-${sessionId}.jsonl"`,
        'cache-control': 'no-store',
      });
      for (let step = first; !step.done; step = await iterator.next()) res.write(step.value.jsonl);
      res.end();
      return STREAMED;
    },
  },
  {
    method: 'POST',
    path: '/api/audit/verify',
    needs: 'read',
    async handle({ session, backend }) {
      const results = await Promise.all(
        session.operator.tenants.map(async (tenant) => {
          try {
            const r = await backend.audit.verify(
              { tenant },
              await backend.as(session, 'read', tenant),
            );
            return {
              tenant,
              ok: r.ok,
              checked: Number(r.checked),
              firstBrokenSequence: Number(r.firstBrokenSequence),
              reason: r.reason,
              headHash: r.headHash,
            };
          } catch (err) {
            return {
              tenant,
              ok: false,
              checked: 0,
              firstBrokenSequence: 0,
              reason: (err as Error).message,
              headHash: '',
            };
          }
        }),
      );
      return { results };
    },
  },
];
