/**
 * gRPC handlers of MemoryService: authenticate the caller from its bearer token, turn the
 * request into a domain call, and the result into a response. Errors are TollgateErrors,
 * mapped to statuses by `tollgateErrorToRpc`.
 */
import type { Server } from '@grpc/grpc-js';
import { addService } from '@tollgate/contracts';
import type { RpcContext, ServiceImpl } from '@tollgate/contracts';
import { MemoryService } from '@tollgate/contracts/memory/v1';
import type { Principal, TokenVerifier } from '@tollgate/core';
import { authenticateRpc, tollgateErrorToRpc } from '@tollgate/kit';
import type { Logger } from '@tollgate/kit';
import {
  candidateKind,
  candidateMessage,
  candidateStatus,
  preferenceMessage,
  preferenceStatus,
  recallKind,
  revisionStatus,
  savedQueryContent,
  savedQueryMessage,
  sessionMessage,
  sessionOutcome,
  skillContent,
  skillMessage,
  valueFromProto,
} from './convert.js';
import type { Caller } from './access/review.js';
import type { Memory } from './memory.js';
import type { RecallItemKind } from './recall.js';
import { pageSize } from './requests/problems.js';

/** The MemoryService implementation over a `Memory`. */
export function memoryServiceImpl(
  memory: Memory,
  verifier: TokenVerifier,
): ServiceImpl<typeof MemoryService> {
  const principalOf = (ctx: RpcContext): Promise<Principal> => authenticateRpc(ctx, verifier);
  const caller = async (ctx: RpcContext): Promise<Caller> =>
    memory.callerOf(await principalOf(ctx));
  const page = (r: { pageSize: number; pageToken: string }) => ({
    pageSize: pageSize(r.pageSize),
    pageToken: r.pageToken,
  });
  return {
    async getSession(req, ctx) {
      return {
        session: sessionMessage(await memory.sessions.get(await principalOf(ctx), req.sessionId)),
      };
    },
    async putSession(req, ctx) {
      const principal = await principalOf(ctx);
      const { session, redactedPaths } = await memory.sessions.put(
        principal,
        req.sessionId,
        req.state ?? {},
        req.expectedVersion,
      );
      return { session: sessionMessage(session), redactedPaths };
    },
    async resumeSession(req, ctx) {
      return {
        session: sessionMessage(
          await memory.sessions.resume(await principalOf(ctx), req.sessionId),
        ),
      };
    },
    async endSession(req, ctx) {
      const principal = await principalOf(ctx);
      const { session, skillCandidateId } = await memory.endSession(
        principal,
        req.sessionId,
        sessionOutcome.read('outcome', req.outcome),
        req.expectedVersion,
      );
      return { session: sessionMessage(session), skillCandidateId };
    },
    async listPreferences(req, ctx) {
      const principal = await caller(ctx);
      const { preferences, nextPageToken } = await memory.preferences.list(principal, {
        user: req.user,
        agent: req.agent,
        status: preferenceStatus.read('status', req.status),
        ...page(req),
      });
      return { preferences: preferences.map(preferenceMessage), nextPageToken };
    },
    async putPreference(req, ctx) {
      const principal = await caller(ctx);
      const preference = await memory.preferences.put(principal, {
        key: req.key,
        kind: req.kind,
        value: valueFromProto(req.value),
        text: req.text,
        user: req.user,
        agent: req.agent,
        sessionId: req.sessionId,
      });
      return { preference: preferenceMessage(preference) };
    },
    async confirmPreference(req, ctx) {
      return {
        preference: preferenceMessage(await memory.preferences.confirm(await caller(ctx), req.id)),
      };
    },
    async forgetPreference(req, ctx) {
      await memory.preferences.forget(await caller(ctx), req.id);
      return {};
    },
    async listCandidates(req, ctx) {
      const principal = await caller(ctx);
      const { candidates, nextPageToken } = await memory.candidates.list(principal, {
        kind: candidateKind.read('kind', req.kind),
        status: candidateStatus.read('status', req.status),
        agent: req.agent,
        ...page(req),
      });
      return { candidates: candidates.map(candidateMessage), nextPageToken };
    },
    async confirmCandidate(req, ctx) {
      const principal = await caller(ctx);
      const candidate = await memory.candidates.confirm(principal, req.id, {
        name: req.name,
        description: req.description,
        fixed: req.fixed ?? {},
      });
      return { candidate: candidateMessage(candidate) };
    },
    async rejectCandidate(req, ctx) {
      return {
        candidate: candidateMessage(
          await memory.candidates.reject(await caller(ctx), req.id, req.reason),
        ),
      };
    },
    async createSavedQuery(req, ctx) {
      const principal = await caller(ctx);
      const view = await memory.savedQueries.create(principal, {
        name: req.name,
        user: req.user,
        sessionId: '',
        content: savedQueryContent(req),
      });
      return { savedQuery: savedQueryMessage(view) };
    },
    async getSavedQuery(req, ctx) {
      return {
        savedQuery: savedQueryMessage(
          await memory.savedQueries.get(await caller(ctx), req.id, req.revision),
        ),
      };
    },
    async listSavedQueries(req, ctx) {
      const principal = await caller(ctx);
      const { views, nextPageToken } = await memory.savedQueries.list(principal, {
        status: revisionStatus.read('status', req.status),
        agent: req.agent,
        indexKey: req.tool,
        ...page(req),
      });
      return { savedQueries: views.map(savedQueryMessage), nextPageToken };
    },
    async updateSavedQuery(req, ctx) {
      const principal = await caller(ctx);
      const view = await memory.savedQueries.update(principal, req.id, {
        content: savedQueryContent(req),
        baseHash: req.baseHash,
        expectedRevision: req.expectedRevision,
      });
      return { savedQuery: savedQueryMessage(view) };
    },
    async approveSavedQuery(req, ctx) {
      const view = await memory.savedQueries.approve(await caller(ctx), req.id, req);
      return { savedQuery: savedQueryMessage(view) };
    },
    async rejectSavedQuery(req, ctx) {
      const view = await memory.savedQueries.reject(await caller(ctx), req.id, req);
      return { savedQuery: savedQueryMessage(view) };
    },
    async deleteSavedQuery(req, ctx) {
      await memory.savedQueries.delete(await caller(ctx), req.id);
      return {};
    },
    async createSkill(req, ctx) {
      const principal = await caller(ctx);
      const view = await memory.skills.create(principal, {
        name: req.name,
        user: req.user,
        sessionId: req.sessionId,
        content: skillContent(req),
      });
      return { skill: skillMessage(view) };
    },
    async getSkill(req, ctx) {
      return {
        skill: skillMessage(await memory.skills.get(await caller(ctx), req.id, req.revision)),
      };
    },
    async listSkills(req, ctx) {
      const principal = await caller(ctx);
      const { views, nextPageToken } = await memory.skills.list(principal, {
        status: revisionStatus.read('status', req.status),
        agent: req.agent,
        ...page(req),
      });
      return { skills: views.map(skillMessage), nextPageToken };
    },
    async updateSkill(req, ctx) {
      const principal = await caller(ctx);
      const view = await memory.skills.update(principal, req.id, {
        content: skillContent(req),
        baseHash: req.baseHash,
        expectedRevision: req.expectedRevision,
      });
      return { skill: skillMessage(view) };
    },
    async approveSkill(req, ctx) {
      return { skill: skillMessage(await memory.skills.approve(await caller(ctx), req.id, req)) };
    },
    async rejectSkill(req, ctx) {
      return { skill: skillMessage(await memory.skills.reject(await caller(ctx), req.id, req)) };
    },
    async deleteSkill(req, ctx) {
      await memory.skills.delete(await caller(ctx), req.id);
      return {};
    },
    async recall(req, ctx) {
      const principal = await principalOf(ctx);
      const kinds = req.kinds
        .map((k, i) => recallKind.read(`kinds[${i}]`, k))
        .filter((k): k is RecallItemKind => k !== undefined);
      const results = await memory.recall(principal, {
        task: req.task,
        sessionId: req.sessionId,
        topK: req.topK,
        kinds,
      });
      return {
        hits: results.map((r) => {
          switch (r.kind) {
            case 'preference':
              return {
                score: r.score,
                item: { case: 'preference' as const, value: preferenceMessage(r.preference) },
              };
            case 'saved_query':
              return {
                score: r.score,
                item: { case: 'savedQuery' as const, value: savedQueryMessage(r.view) },
              };
            case 'skill':
              return {
                score: r.score,
                item: { case: 'skill' as const, value: skillMessage(r.view) },
              };
          }
        }),
      };
    },
  };
}

/** Registers MemoryService on a gRPC server; unexpected errors are logged, never sent. */
export function addMemoryService(
  server: Server,
  memory: Memory,
  verifier: TokenVerifier,
  logger: Logger,
): void {
  addService(server, MemoryService, memoryServiceImpl(memory, verifier), {
    mapError: tollgateErrorToRpc,
    onUnexpectedError: (err, ctx) =>
      logger.error(
        {
          method: ctx.method,
          err: { message: (err as Error)?.message, name: (err as Error)?.name },
        },
        'unexpected error',
      ),
  });
}
