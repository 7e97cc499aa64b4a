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
import { json } from '../backend/backend.js';
import { badRequest } from '../http/problem.js';
import type { Route } from '../http/route.js';
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

export const memoryRoutes: Route[] = [
  {
    method: 'GET',
    path: '/api/memory/candidates',
    needs: 'read',
    async handle({ url, session, backend }) {
      const reply = await backend.memory.listCandidates(
        {
          agent: nameParam(url.searchParams.get('agent'), 'agent'),
          status: enumParam(
            CandidateStatus,
            url.searchParams.get('status'),
            'status',
            CandidateStatus.PENDING,
          ),
          pageSize: 200,
        },
        await backend.as(session, 'read'),
      );
      return json(ListCandidatesResponseSchema, reply);
    },
  },
  {
    method: 'POST',
    path: '/api/memory/candidates/:id/confirm',
    needs: 'review',
    async handle({ params, body, session, backend }) {
      const reply = await backend.memory.confirmCandidate(
        {
          id: idParam(params.id, 'id'),
          name: optionalName(body.name as string | undefined, 'name'),
          description: textParam(body.description, 'description'),
        },
        await backend.as(session, 'review'),
      );
      return json(ConfirmCandidateResponseSchema, reply);
    },
  },
  {
    method: 'POST',
    path: '/api/memory/candidates/:id/reject',
    needs: 'review',
    async handle({ params, body, session, backend }) {
      const reply = await backend.memory.rejectCandidate(
        { id: idParam(params.id, 'id'), reason: textParam(body.reason, 'reason') },
        await backend.as(session, 'review'),
      );
      return json(RejectCandidateResponseSchema, reply);
    },
  },
  {
    method: 'GET',
    path: '/api/memory/saved-queries',
    needs: 'read',
    async handle({ url, session, backend }) {
      const reply = await backend.memory.listSavedQueries(
        {
          agent: nameParam(url.searchParams.get('agent'), 'agent'),
          status: enumParam(
            RevisionStatus,
            url.searchParams.get('status'),
            'status',
            RevisionStatus.UNSPECIFIED,
          ),
          pageSize: 200,
        },
        await backend.as(session, 'read'),
      );
      return json(ListSavedQueriesResponseSchema, reply);
    },
  },
  {
    method: 'POST',
    path: '/api/memory/saved-queries/:id/approve',
    needs: 'review',
    async handle({ params, body, session, backend }) {
      const reply = await backend.memory.approveSavedQuery(
        {
          id: idParam(params.id, 'id'),
          revision: versionParam(body.revision, 'revision'),
          reason: textParam(body.reason, 'reason'),
          contentHash: hashParam(body.contentHash),
        },
        await backend.as(session, 'review'),
      );
      return json(ApproveSavedQueryResponseSchema, reply);
    },
  },
  {
    method: 'POST',
    path: '/api/memory/saved-queries/:id/reject',
    needs: 'review',
    async handle({ params, body, session, backend }) {
      const reply = await backend.memory.rejectSavedQuery(
        {
          id: idParam(params.id, 'id'),
          revision: versionParam(body.revision, 'revision'),
          reason: textParam(body.reason, 'reason'),
        },
        await backend.as(session, 'review'),
      );
      return json(RejectSavedQueryResponseSchema, reply);
    },
  },
  {
    method: 'POST',
    path: '/api/memory/saved-queries/:id/delete',
    needs: 'review',
    async handle({ params, session, backend }) {
      await backend.memory.deleteSavedQuery(
        { id: idParam(params.id, 'id') },
        await backend.as(session, 'review'),
      );
      return { deleted: true };
    },
  },
  {
    method: 'GET',
    path: '/api/memory/skills',
    needs: 'read',
    async handle({ url, session, backend }) {
      const reply = await backend.memory.listSkills(
        {
          agent: nameParam(url.searchParams.get('agent'), 'agent'),
          status: enumParam(
            RevisionStatus,
            url.searchParams.get('status'),
            'status',
            RevisionStatus.UNSPECIFIED,
          ),
          pageSize: 200,
        },
        await backend.as(session, 'read'),
      );
      return json(ListSkillsResponseSchema, reply);
    },
  },
  {
    method: 'POST',
    path: '/api/memory/skills/:id/approve',
    needs: 'review',
    async handle({ params, body, session, backend }) {
      const reply = await backend.memory.approveSkill(
        {
          id: idParam(params.id, 'id'),
          revision: versionParam(body.revision, 'revision'),
          reason: textParam(body.reason, 'reason'),
          contentHash: hashParam(body.contentHash),
        },
        await backend.as(session, 'review'),
      );
      return json(ApproveSkillResponseSchema, reply);
    },
  },
  {
    method: 'POST',
    path: '/api/memory/skills/:id/reject',
    needs: 'review',
    async handle({ params, body, session, backend }) {
      const reply = await backend.memory.rejectSkill(
        {
          id: idParam(params.id, 'id'),
          revision: versionParam(body.revision, 'revision'),
          reason: textParam(body.reason, 'reason'),
        },
        await backend.as(session, 'review'),
      );
      return json(RejectSkillResponseSchema, reply);
    },
  },
  {
    method: 'POST',
    path: '/api/memory/skills/:id/delete',
    needs: 'review',
    async handle({ params, session, backend }) {
      await backend.memory.deleteSkill(
        { id: idParam(params.id, 'id') },
        await backend.as(session, 'review'),
      );
      return { deleted: true };
    },
  },
  {
    method: 'GET',
    path: '/api/memory/preferences',
    needs: 'read',
    async handle({ url, session, backend }) {
      const reply = await backend.memory.listPreferences(
        {
          agent: nameParam(url.searchParams.get('agent'), 'agent'),
          status: enumParam(
            PreferenceStatus,
            url.searchParams.get('status'),
            'status',
            PreferenceStatus.UNSPECIFIED,
          ),
          pageSize: 200,
        },
        await backend.as(session, 'read'),
      );
      return json(ListPreferencesResponseSchema, reply);
    },
  },
  {
    method: 'POST',
    path: '/api/memory/preferences/:id/confirm',
    needs: 'review',
    async handle({ params, session, backend }) {
      const reply = await backend.memory.confirmPreference(
        { id: idParam(params.id, 'id') },
        await backend.as(session, 'review'),
      );
      return json(ConfirmPreferenceResponseSchema, reply);
    },
  },
  {
    method: 'POST',
    path: '/api/memory/preferences/:id/forget',
    needs: 'review',
    async handle({ params, session, backend }) {
      await backend.memory.forgetPreference(
        { id: idParam(params.id, 'id') },
        await backend.as(session, 'review'),
      );
      return { forgotten: true };
    },
  },
];
