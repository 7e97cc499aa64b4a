/**
 * Memory review: candidates, saved queries, skills and preferences of an agent, and the
 * person's decisions on them (confirm, approve, reject, forget). The console acts as a person
 * (its tokens carry the signed-in user), which memory requires of every reviewer.
 */
import {
  CandidateStatus,
  ListCandidatesResponseSchema,
  ListPreferencesResponseSchema,
  ListSavedQueriesResponseSchema,
  ListSkillsResponseSchema,
  ConfirmCandidateResponseSchema,
  RejectCandidateResponseSchema,
  ApproveSavedQueryResponseSchema,
  RejectSavedQueryResponseSchema,
  ApproveSkillResponseSchema,
  RejectSkillResponseSchema,
  ConfirmPreferenceResponseSchema,
  PreferenceStatus,
  RevisionStatus,
} from '@tollgate/contracts/memory/v1';
import type { CallOptions } from '@tollgate/contracts';
import { json } from '../backend/backend.js';
import type { Backend } from '../backend/backend.js';
import { badRequest } from '../http/problem.js';
import type { ApiContext, Route } from '../http/route.js';
import { idParam, nameParam, optionalName, textParam, versionParam } from './params.js';

function enumParam<T extends Record<string, string | number>>(
  values: T,
  raw: string | null,
  field: string,
  fallback: T[keyof T],
): T[keyof T] {
  if (raw === null || raw === '') return fallback;
  const value = values[raw.toUpperCase() as keyof T];
  if (typeof value !== 'number') {
    throw badRequest(`${field} is not one of the statuses.`, [
      { path: field, message: 'unknown status' },
    ]);
  }
  return value;
}

const HASH = /^[0-9a-f]{64}$/;

function hashParam(value: unknown): string {
  if (typeof value !== 'string' || !HASH.test(value)) {
    throw badRequest('contentHash must be the revision’s content hash as shown.', [
      { path: 'contentHash', message: 'not a sha256 hex' },
    ]);
  }
  return value;
}

type Memory = Backend['memory'];

/** What every list of one tier is asked for: an agent's items in one status. */
interface ListRequest<S> {
  agent: string;
  status: S;
  pageSize: number;
}

/** `GET path?agent=…&status=…` (any role): one tier's items, `status` defaulting to `fallback`. */
function listRoute<E extends Record<string, string | number>>(
  path: string,
  statuses: E,
  fallback: E[keyof E],
  list: (
    memory: Memory,
    request: ListRequest<E[keyof E]>,
    options: CallOptions,
  ) => Promise<unknown>,
): Route {
  return {
    method: 'GET',
    path,
    needs: 'read',
    async handle({ url, session, backend }) {
      const request = {
        agent: nameParam(url.searchParams.get('agent'), 'agent'),
        status: enumParam(statuses, url.searchParams.get('status'), 'status', fallback),
        pageSize: 200,
      };
      return list(backend.memory, request, await backend.as(session, 'read'));
    },
  };
}

/** `POST path` (reviewers): one decision on one item, as the signed-in person. */
function decisionRoute(
  path: string,
  decide: (memory: Memory, ctx: ApiContext, options: CallOptions) => Promise<unknown>,
): Route {
  return {
    method: 'POST',
    path,
    needs: 'review',
    async handle(ctx) {
      return decide(ctx.backend.memory, ctx, await ctx.backend.as(ctx.session, 'review'));
    },
  };
}

/** The revision a saved-query or skill decision is about, and the reviewer's reason. */
function revisionDecision({ params, body }: ApiContext) {
  return {
    id: idParam(params.id, 'id'),
    revision: versionParam(body.revision, 'revision'),
    reason: textParam(body.reason, 'reason'),
  };
}

/** The item a delete, forget or confirm without arguments names. */
function itemOf({ params }: ApiContext) {
  return { id: idParam(params.id, 'id') };
}

export const memoryRoutes: Route[] = [
  listRoute(
    '/api/memory/candidates',
    CandidateStatus,
    CandidateStatus.PENDING,
    async (memory, request, as) =>
      json(ListCandidatesResponseSchema, await memory.listCandidates(request, as)),
  ),
  decisionRoute('/api/memory/candidates/:id/confirm', async (memory, { params, body }, as) => {
    const request = {
      id: idParam(params.id, 'id'),
      name: optionalName(body.name as string | undefined, 'name'),
      description: textParam(body.description, 'description'),
    };
    return json(ConfirmCandidateResponseSchema, await memory.confirmCandidate(request, as));
  }),
  decisionRoute('/api/memory/candidates/:id/reject', async (memory, { params, body }, as) => {
    const request = { id: idParam(params.id, 'id'), reason: textParam(body.reason, 'reason') };
    return json(RejectCandidateResponseSchema, await memory.rejectCandidate(request, as));
  }),
  listRoute(
    '/api/memory/saved-queries',
    RevisionStatus,
    RevisionStatus.UNSPECIFIED,
    async (memory, request, as) =>
      json(ListSavedQueriesResponseSchema, await memory.listSavedQueries(request, as)),
  ),
  decisionRoute('/api/memory/saved-queries/:id/approve', async (memory, ctx, as) => {
    const request = { ...revisionDecision(ctx), contentHash: hashParam(ctx.body.contentHash) };
    return json(ApproveSavedQueryResponseSchema, await memory.approveSavedQuery(request, as));
  }),
  decisionRoute('/api/memory/saved-queries/:id/reject', async (memory, ctx, as) =>
    json(RejectSavedQueryResponseSchema, await memory.rejectSavedQuery(revisionDecision(ctx), as)),
  ),
  decisionRoute('/api/memory/saved-queries/:id/delete', async (memory, ctx, as) => {
    await memory.deleteSavedQuery(itemOf(ctx), as);
    return { deleted: true };
  }),
  listRoute(
    '/api/memory/skills',
    RevisionStatus,
    RevisionStatus.UNSPECIFIED,
    async (memory, request, as) =>
      json(ListSkillsResponseSchema, await memory.listSkills(request, as)),
  ),
  decisionRoute('/api/memory/skills/:id/approve', async (memory, ctx, as) => {
    const request = { ...revisionDecision(ctx), contentHash: hashParam(ctx.body.contentHash) };
    return json(ApproveSkillResponseSchema, await memory.approveSkill(request, as));
  }),
  decisionRoute('/api/memory/skills/:id/reject', async (memory, ctx, as) =>
    json(RejectSkillResponseSchema, await memory.rejectSkill(revisionDecision(ctx), as)),
  ),
  decisionRoute('/api/memory/skills/:id/delete', async (memory, ctx, as) => {
    await memory.deleteSkill(itemOf(ctx), as);
    return { deleted: true };
  }),
  listRoute(
    '/api/memory/preferences',
    PreferenceStatus,
    PreferenceStatus.UNSPECIFIED,
    async (memory, request, as) =>
      json(ListPreferencesResponseSchema, await memory.listPreferences(request, as)),
  ),
  decisionRoute('/api/memory/preferences/:id/confirm', async (memory, ctx, as) =>
    json(ConfirmPreferenceResponseSchema, await memory.confirmPreference(itemOf(ctx), as)),
  ),
  decisionRoute('/api/memory/preferences/:id/forget', async (memory, ctx, as) => {
    await memory.forgetPreference(itemOf(ctx), as);
    return { forgotten: true };
  }),
];
