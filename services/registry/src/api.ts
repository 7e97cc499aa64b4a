import type { Server } from '@grpc/grpc-js';
import { addService } from '@tollgate/contracts';
import type { RpcContext } from '@tollgate/contracts';
import { RegistryService } from '@tollgate/contracts/registry/v1';
import type { Principal, TokenVerifier } from '@tollgate/core';
import { authenticateRpc, tollgateErrorToRpc } from '@tollgate/kit';
import type { Logger } from '@tollgate/kit';
import {
  diffMessages,
  draftMessage,
  fieldMessages,
  resourceVersionMessage,
  warningMessages,
} from './convert.js';
import type { Drafts } from './drafts.js';
import type { Registry } from './registry.js';
import { checkRequest } from './requests.js';

export interface RegistryApiDeps {
  registry: Registry;
  drafts: Drafts;
  verifier: TokenVerifier;
  /** Resource types the registry has connectors for (List's `type` filter). */
  kinds: readonly string[];
  logger: Logger;
}

/**
 * Registers the RegistryService. Every method authenticates the caller from its bearer token,
 * then checks the request's fields (all problems at once, INVALID_ARGUMENT) before anything is
 * read or written.
 */
export function registerRegistryApi(server: Server, deps: RegistryApiDeps): void {
  const { registry, drafts } = deps;
  const caller = (context: RpcContext): Promise<Principal> =>
    authenticateRpc(context, deps.verifier);

  addService(
    server,
    RegistryService,
    {
      async apply(req, ctx) {
        const principal = await caller(ctx);
        const descriptor = checkRequest((p) => p.descriptor('descriptor', req.descriptor));
        const outcome = await registry.apply(principal, descriptor, {
          expectedVersion: req.expectedVersion,
          dryRun: req.dryRun,
        });
        return {
          resource: resourceVersionMessage(outcome.record),
          unchanged: outcome.unchanged,
          diff: diffMessages(outcome.diff),
          warnings: warningMessages(outcome.warnings),
        };
      },

      async get(req, ctx) {
        const principal = await caller(ctx);
        const query = checkRequest((p) => ({
          tenant: p.scopePart('tenant', req.tenant),
          environment: p.scopePart('environment', req.environment),
          name: p.resourceName('name', req.name),
          version: req.version,
        }));
        return { resource: resourceVersionMessage(await registry.get(principal, query)) };
      },

      async list(req, ctx) {
        const principal = await caller(ctx);
        const query = checkRequest((p) => ({
          tenant: p.scopePart('tenant', req.tenant),
          environment: p.scopePart('environment', req.environment),
          labels: p.labels('labels', req.labels),
          type: p.resourceType('type', req.type, deps.kinds),
          includeDeleted: req.includeDeleted,
          pageSize: p.pageSize(req.pageSize),
          pageToken: req.pageToken,
        }));
        const page = registry.list(principal, query);
        return {
          resources: page.records.map(resourceVersionMessage),
          nextPageToken: page.nextPageToken,
        };
      },

      async history(req, ctx) {
        const principal = await caller(ctx);
        const query = checkRequest((p) => ({
          tenant: p.scopePart('tenant', req.tenant),
          environment: p.scopePart('environment', req.environment),
          name: p.resourceName('name', req.name),
          pageSize: p.pageSize(req.pageSize),
          pageToken: req.pageToken,
        }));
        const page = await registry.history(principal, query);
        return {
          versions: page.records.map(resourceVersionMessage),
          nextPageToken: page.nextPageToken,
        };
      },

      async rollback(req, ctx) {
        const principal = await caller(ctx);
        const query = checkRequest((p) => ({
          tenant: p.scopePart('tenant', req.tenant),
          environment: p.scopePart('environment', req.environment),
          name: p.resourceName('name', req.name),
          toVersion: p.version('to_version', req.toVersion),
          expectedVersion: req.expectedVersion,
        }));
        const outcome = await registry.rollback(principal, query);
        return {
          resource: resourceVersionMessage(outcome.record),
          diff: diffMessages(outcome.diff),
        };
      },

      async delete(req, ctx) {
        const principal = await caller(ctx);
        const query = checkRequest((p) => ({
          tenant: p.scopePart('tenant', req.tenant),
          environment: p.scopePart('environment', req.environment),
          name: p.resourceName('name', req.name),
          expectedVersion: req.expectedVersion,
        }));
        return { resource: resourceVersionMessage(await registry.delete(principal, query)) };
      },

      async discover(req, ctx) {
        const principal = await caller(ctx);
        const descriptor = checkRequest((p) => p.descriptor('descriptor', req.descriptor));
        const proposal = await drafts.discover(principal, descriptor);
        return {
          fields: fieldMessages(proposal.fields),
          descriptor: proposal.descriptor,
          warnings: warningMessages(proposal.warnings),
        };
      },

      async draft(req, ctx) {
        const principal = await caller(ctx);
        const { descriptor, sessionId } = checkRequest((p) => ({
          descriptor: p.descriptor('descriptor', req.descriptor),
          sessionId: p.sessionId('session_id', req.sessionId),
        }));
        return { draft: draftMessage(await drafts.draft(principal, descriptor, sessionId)) };
      },

      async confirm(req, ctx) {
        const principal = await caller(ctx);
        const id = checkRequest((p) => p.draftId('draft_id', req.draftId));
        const { outcome, draft } = await drafts.confirm(principal, id, {
          expectedVersion: req.expectedVersion,
          edits: req.edits,
        });
        return { resource: resourceVersionMessage(outcome.record), draft: draftMessage(draft) };
      },

      async reject(req, ctx) {
        const principal = await caller(ctx);
        const { id, reason } = checkRequest((p) => ({
          id: p.draftId('draft_id', req.draftId),
          reason: p.text('reason', req.reason),
        }));
        return { draft: draftMessage(await drafts.reject(principal, id, reason)) };
      },
    },
    {
      mapError: tollgateErrorToRpc,
      onUnexpectedError: (err, context) =>
        deps.logger.error(
          {
            method: context.method,
            err: { name: (err as Error)?.name, message: (err as Error)?.message },
          },
          'registry call failed unexpectedly',
        ),
    },
  );
}
