import type { JsonObject } from '@bufbuild/protobuf';
import type { Server } from '@grpc/grpc-js';
import { addService } from '@tollgate/contracts';
import type { RpcContext } from '@tollgate/contracts';
import { PolicyService } from '@tollgate/contracts/policy/v1';
import type { Principal, TokenVerifier } from '@tollgate/core';
import { authenticateRpc, pageSize, tollgateErrorToRpc } from '@tollgate/kit';
import type { Logger } from '@tollgate/kit';
import type { Approvals } from '../approvals/approvals.js';
import type { Declarations } from '../declarations/declarations.js';
import type { Decisions } from '../decisions.js';
import {
  agentMessage,
  approvalMessage,
  decisionMessage,
  diffMessages,
  effectMessage,
  permissionSetMessage,
  policyMessage,
} from './convert.js';
import { checkRequest } from './requests.js';

export interface PolicyApiDeps {
  declarations: Declarations;
  decisions: Decisions;
  approvals: Approvals;
  verifier: TokenVerifier;
  logger: Logger;
}

/**
 * Registers the PolicyService. Every method authenticates the caller from its bearer token,
 * then checks the request's fields (all problems at once, INVALID_ARGUMENT) before anything is
 * read or written; the tenant is always the caller's.
 */
export function registerPolicyApi(server: Server, deps: PolicyApiDeps): void {
  const { declarations, decisions, approvals } = deps;
  const caller = (context: RpcContext): Promise<Principal> =>
    authenticateRpc(context, deps.verifier);

  addService(
    server,
    PolicyService,
    {
      async decide(req, ctx) {
        const principal = await caller(ctx);
        const query = checkRequest((p) => ({
          principal: p.principal('principal', req.principal, principal),
          resource: p.resourceName('resource', req.resource),
          action: p.operation('action', req.action),
          context: p.callContext(req.sourceIp, req.time, req.context),
        }));
        return { decision: decisionMessage(await decisions.decide(principal, query)) };
      },

      async explain(req, ctx) {
        const principal = await caller(ctx);
        const query = checkRequest((p) => ({
          principal: p.principal('principal', req.principal, principal),
          resource: p.resourceName('resource', req.resource),
          action: p.operation('action', req.action),
          context: p.callContext(req.sourceIp, req.time, req.context),
        }));
        const { trace, permissions } = await decisions.explain(principal, query);
        return {
          decision: decisionMessage(trace.decision),
          matches: trace.policies
            .filter((policy) => policy.matched === true)
            .map((policy) => ({
              policyId: policy.id,
              effect: effectMessage(policy.effect),
              policyName: policy.source.startsWith('Policy/') ? policy.source.slice(7) : '',
            })),
          errors: trace.errors,
          permissionSet: permissionSetMessage(permissions),
          trace: JSON.parse(JSON.stringify(trace)) as JsonObject,
        };
      },

      async applyPolicy(req, ctx) {
        const principal = await caller(ctx);
        const descriptor = checkRequest((p) =>
          p.descriptor('descriptor', req.descriptor, 'Policy'),
        );
        const outcome = await declarations.applyPolicy(principal, descriptor, {
          expectedVersion: req.expectedVersion,
          dryRun: req.dryRun,
        });
        return {
          policy: policyMessage(outcome.record),
          ...applied(outcome),
        };
      },

      async getPolicy(req, ctx) {
        const principal = await caller(ctx);
        const query = checkRequest((p) => ({
          tenant: p.tenant('tenant', req.tenant),
          name: p.declarationName('name', req.name),
          version: req.version,
        }));
        return { policy: policyMessage(await declarations.getPolicy(principal, query)) };
      },

      async listPolicies(req, ctx) {
        const principal = await caller(ctx);
        const query = checkRequest((p) => ({
          tenant: p.tenant('tenant', req.tenant),
          pageSize: pageSize(req.pageSize),
          pageToken: req.pageToken,
        }));
        const page = await declarations.listPolicies(principal, query);
        return { policies: page.records.map(policyMessage), nextPageToken: page.nextPageToken };
      },

      async deletePolicy(req, ctx) {
        const principal = await caller(ctx);
        const query = checkRequest((p) => ({
          tenant: p.tenant('tenant', req.tenant),
          name: p.declarationName('name', req.name),
          expectedVersion: req.expectedVersion,
        }));
        const outcome = await declarations.deletePolicy(principal, query);
        return {
          policy: policyMessage(outcome.record),
          ...bundleReply(outcome.bundle),
        };
      },

      async applyAgent(req, ctx) {
        const principal = await caller(ctx);
        const descriptor = checkRequest((p) => p.descriptor('descriptor', req.descriptor, 'Agent'));
        const outcome = await declarations.applyAgent(principal, descriptor, {
          expectedVersion: req.expectedVersion,
          dryRun: req.dryRun,
        });
        return {
          agent: agentMessage(outcome.record),
          ...applied(outcome),
        };
      },

      async getAgent(req, ctx) {
        const principal = await caller(ctx);
        const query = checkRequest((p) => ({
          tenant: p.tenant('tenant', req.tenant),
          name: p.declarationName('name', req.name),
        }));
        return { agent: agentMessage(await declarations.getAgent(principal, query)) };
      },

      async listAgents(req, ctx) {
        const principal = await caller(ctx);
        const query = checkRequest((p) => ({
          tenant: p.tenant('tenant', req.tenant),
          pageSize: pageSize(req.pageSize),
          pageToken: req.pageToken,
        }));
        const page = await declarations.listAgents(principal, query);
        return { agents: page.records.map(agentMessage), nextPageToken: page.nextPageToken };
      },

      async getPermissionSet(req, ctx) {
        const principal = await caller(ctx);
        const query = checkRequest((p) => ({
          principal: p.principal('principal', req.principal, principal),
          resource: p.resourceName('resource', req.resource),
        }));
        const permissions = await decisions.permissionSet(
          principal,
          query.principal,
          query.resource,
        );
        return {
          permissionSet: permissionSetMessage(permissions),
          approvalOperations: [...permissions.approvalOperations],
          conditionalOperations: [...permissions.conditionalOperations],
          unavailable: permissions.unavailable ?? '',
        };
      },

      async listPending(req, ctx) {
        const principal = await caller(ctx);
        const query = checkRequest((p) => ({
          tenant: p.tenant('tenant', req.tenant),
          resource: p.resourceFilter('resource', req.resource),
          pageSize: pageSize(req.pageSize),
          pageToken: req.pageToken,
        }));
        const page = await approvals.listPending(principal, query);
        return { approvals: page.records.map(approvalMessage), nextPageToken: page.nextPageToken };
      },

      async getApproval(req, ctx) {
        const principal = await caller(ctx);
        const id = checkRequest((p) => p.approvalId('id', req.id));
        return { approval: approvalMessage(await approvals.get(principal, id)) };
      },

      async approve(req, ctx) {
        const principal = await caller(ctx);
        const { id, reason } = checkRequest((p) => ({
          id: p.approvalId('id', req.id),
          reason: p.text('reason', req.reason),
        }));
        return { approval: approvalMessage(await approvals.approve(principal, id, reason)) };
      },

      async reject(req, ctx) {
        const principal = await caller(ctx);
        const { id, reason } = checkRequest((p) => ({
          id: p.approvalId('id', req.id),
          reason: p.text('reason', req.reason),
        }));
        return { approval: approvalMessage(await approvals.reject(principal, id, reason)) };
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
          'policy call failed unexpectedly',
        ),
    },
  );
}

/** The bundle a change compiled into, as the reply names it (none: version 0, no hash). */
function bundleReply(bundle: { version: number; hash: string } | undefined) {
  return { bundleVersion: bundle?.version ?? 0, bundleHash: bundle?.hash ?? '' };
}

/** What an apply reply says besides the declaration: unchanged or the diff, and the bundle. */
function applied(outcome: {
  unchanged: boolean;
  diff: Parameters<typeof diffMessages>[0];
  bundle?: { version: number; hash: string } | undefined;
}) {
  return {
    unchanged: outcome.unchanged,
    diff: diffMessages(outcome.diff),
    ...bundleReply(outcome.bundle),
  };
}
