import type { Server } from '@grpc/grpc-js';
import { addService } from '@tollgate/contracts';
import type { RpcContext } from '@tollgate/contracts';
import { RegistryService } from '@tollgate/contracts/registry/v1';
import type { Principal, TokenVerifier } from '@tollgate/core';
import { authenticateRpc, tollgateErrorToRpc } from '@tollgate/kit';
import type { Logger, OperatorRoles } from '@tollgate/kit';
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
  /** The callers' roles, from their Agent declarations (the tenants' policy bundles). */
  roles: OperatorRoles;
  /** Resource types the registry has connectors for (List's `type` filter). */
  kinds: readonly string[];
  logger: Logger;
}

/**
 * Who may call what, by the roles of the caller's Agent declaration in its tenant:
 * - `admin` changes resources (Apply, also as a dry run; Rollback, Delete), drafts and decides
 *   drafts (Draft, Confirm, Reject) and discovers (Discover, Draft: both connect to the
 *   upstream with the resource's credential);
 * - `admin`, `approver` and `viewer` read them (Get, List, History): an approver decides calls
 *   on resources it must be able to look at; an agent never needs the registry (its tools come
 *   from the synthesizer) and is not shown endpoints and credential references.
 */
export const REGISTRY_ROLES = {
  change: ['admin'],
  read: ['admin', 'approver', 'viewer'],
} as const satisfies Record<string, readonly string[]>;

/**
 * Registers the RegistryService. Every method authenticates the caller from its bearer token
 * and checks its roles (PERMISSION_DENIED naming the role needed), then checks the request's
 * fields (all problems at once, INVALID_ARGUMENT) before anything is read or written.
 */
export function registerRegistryApi(server: Server, deps: RegistryApiDeps): void {
  const { registry, drafts } = deps;
  const authorized = async (
    context: RpcContext,
    roles: readonly string[],
    doing: string,
  ): Promise<Principal> => {
    const principal = await authenticateRpc(context, deps.verifier);
    await deps.roles.require(principal, roles, doing);
    return principal;
  };
  const changing = (context: RpcContext, doing: string) =>
    authorized(context, REGISTRY_ROLES.change, doing);
  const reading = (context: RpcContext, doing: string) =>
    authorized(context, REGISTRY_ROLES.read, doing);

  addService(
    server,
    RegistryService,
    {
      async apply(req, ctx) {
        const principal = await changing(ctx, 'apply resources');
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
        const principal = await reading(ctx, 'read resources');
        const query = checkRequest((p) => ({
          ...p.resource(req),
          version: req.version,
        }));
        return { resource: resourceVersionMessage(await registry.get(principal, query)) };
      },

      async list(req, ctx) {
        const principal = await reading(ctx, 'list resources');
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
        const principal = await reading(ctx, 'read resource history');
        const query = checkRequest((p) => ({
          ...p.resource(req),
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
        const principal = await changing(ctx, 'roll back resources');
        const query = checkRequest((p) => ({
          ...p.resource(req),
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
        const principal = await changing(ctx, 'delete resources');
        const query = checkRequest((p) => ({
          ...p.resource(req),
          expectedVersion: req.expectedVersion,
        }));
        return { resource: resourceVersionMessage(await registry.delete(principal, query)) };
      },

      async discover(req, ctx) {
        const principal = await changing(ctx, 'discover resources');
        const descriptor = checkRequest((p) => p.descriptor('descriptor', req.descriptor));
        const proposal = await drafts.discover(principal, descriptor);
        return {
          fields: fieldMessages(proposal.fields),
          descriptor: proposal.descriptor,
          warnings: warningMessages(proposal.warnings),
          currentVersion: proposal.currentVersion,
          changes: diffMessages(proposal.changes),
        };
      },

      async draft(req, ctx) {
        const principal = await changing(ctx, 'draft resources');
        const { descriptor, sessionId } = checkRequest((p) => ({
          descriptor: p.descriptor('descriptor', req.descriptor),
          sessionId: p.sessionId('session_id', req.sessionId),
        }));
        return { draft: draftMessage(await drafts.draft(principal, descriptor, sessionId)) };
      },

      async confirm(req, ctx) {
        const principal = await changing(ctx, 'confirm resource drafts');
        const id = checkRequest((p) => p.draftId('draft_id', req.draftId));
        const { outcome, draft } = await drafts.confirm(principal, id, {
          expectedVersion: req.expectedVersion,
          edits: req.edits,
        });
        return { resource: resourceVersionMessage(outcome.record), draft: draftMessage(draft) };
      },

      async reject(req, ctx) {
        const principal = await changing(ctx, 'reject resource drafts');
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
