/** Agents and policies: list, read, edit as YAML (Cedar checked inline), delete, explain. */
import { selfContainedSchemas } from '@tollgate/kinds';
import { checkCedarPolicy } from '@tollgate/policy';
import {
  ApplyAgentResponseSchema,
  ApplyPolicyResponseSchema,
  DecisionEffect,
  DeletePolicyResponseSchema,
  ExplainResponseSchema,
  GetPolicyResponseSchema,
  ListAgentsResponseSchema,
  ListPoliciesResponseSchema,
} from '@tollgate/contracts/policy/v1';
import { json } from '../backend/backend.js';
import {
  checkDescriptorText,
  descriptorYaml,
  readDescriptorText,
} from '../backend/descriptor-text.js';
import type { ProblemDetail } from '../http/problem.js';
import type { Route } from '../http/route.js';
import { flag, nameParam, objectParam, optionalVersion, textParam } from './params.js';
import { locating } from './resources.js';

export const declarationRoutes: Route[] = [
  {
    method: 'GET',
    path: '/api/schema',
    needs: 'read',
    handle: async () => selfContainedSchemas(),
  },
  {
    method: 'GET',
    path: '/api/agents',
    needs: 'read',
    async handle({ session, backend }) {
      const reply = await backend.policy.listAgents(
        { pageSize: 500 },
        await backend.as(session, 'read'),
      );
      return json(ListAgentsResponseSchema, reply);
    },
  },
  {
    method: 'POST',
    path: '/api/agents/apply',
    needs: 'manage',
    async handle({ body, session, backend }) {
      const text = readDescriptorText(body.yaml, 'Agent');
      const expectedVersion = optionalVersion(body.expectedVersion, 'expectedVersion');
      const reply = await locating(text, async () =>
        backend.policy.applyAgent(
          {
            descriptor: text.descriptor,
            dryRun: flag(body.dryRun),
            ...(expectedVersion !== undefined ? { expectedVersion } : {}),
          },
          await backend.as(session, 'manage'),
        ),
      );
      return json(ApplyAgentResponseSchema, reply);
    },
  },
  {
    method: 'GET',
    path: '/api/policies',
    needs: 'read',
    async handle({ session, backend }) {
      const reply = await backend.policy.listPolicies(
        { pageSize: 500 },
        await backend.as(session, 'read'),
      );
      return json(ListPoliciesResponseSchema, reply);
    },
  },
  {
    method: 'GET',
    path: '/api/policies/:name',
    needs: 'read',
    async handle({ params, session, backend }) {
      const reply = await backend.policy.getPolicy(
        { name: nameParam(params.name, 'name') },
        await backend.as(session, 'read'),
      );
      return {
        ...(json(GetPolicyResponseSchema, reply) as object),
        yaml: descriptorYaml(reply.policy?.descriptor ?? {}),
      };
    },
  },
  {
    method: 'POST',
    path: '/api/policies/check',
    needs: 'read',
    async handle({ body }) {
      const source = String(body.yaml ?? '');
      const problems = checkDescriptorText(source, 'Policy');
      const text = readDescriptorText(source, 'Policy');
      const spec = text.descriptor.spec as Record<string, unknown> | undefined;
      if (typeof spec?.cedar === 'string' && spec.cedar.trim() !== '') {
        const checked = checkCedarPolicy(spec.cedar);
        if (!checked.ok) {
          problems.push(
            ...checked.problems.map((p): ProblemDetail => {
              const at =
                p.line !== undefined
                  ? text.locateInside('spec.cedar', p.line, p.column ?? 1)
                  : text.locate('spec.cedar');
              return { path: p.path, message: p.message, ...(at ?? {}) };
            }),
          );
        }
      }
      return { problems };
    },
  },
  {
    method: 'POST',
    path: '/api/policies/apply',
    needs: 'manage',
    async handle({ body, session, backend }) {
      const text = readDescriptorText(body.yaml, 'Policy');
      const expectedVersion = optionalVersion(body.expectedVersion, 'expectedVersion');
      const reply = await locating(text, async () =>
        backend.policy.applyPolicy(
          {
            descriptor: text.descriptor,
            dryRun: flag(body.dryRun),
            ...(expectedVersion !== undefined ? { expectedVersion } : {}),
          },
          await backend.as(session, 'manage'),
        ),
      );
      return json(ApplyPolicyResponseSchema, reply);
    },
  },
  {
    method: 'POST',
    path: '/api/policies/:name/delete',
    needs: 'manage',
    async handle({ params, session, backend }) {
      const reply = await backend.policy.deletePolicy(
        { name: nameParam(params.name, 'name') },
        await backend.as(session, 'manage'),
      );
      return json(DeletePolicyResponseSchema, reply);
    },
  },
  {
    method: 'POST',
    path: '/api/explain',
    needs: 'explain',
    async handle({ body, session, backend }) {
      const principal = {
        tenant: session.tenant,
        agent: nameParam(body.agent as string, 'agent'),
        environment: backend.tokens.environment,
        user: textParam(body.user, 'user', 200),
      };
      const reply = await backend.policy.explain(
        {
          principal,
          resource: nameParam(body.resource as string, 'resource'),
          resourceVersion: optionalVersion(body.resourceVersion, 'resourceVersion') ?? 0,
          action: nameParam(body.action as string, 'action'),
          sourceIp: textParam(body.sourceIp, 'sourceIp', 64),
          ...(body.context !== undefined
            ? { context: objectParam(body.context, 'context') as never }
            : {}),
        },
        await backend.as(session, 'explain'),
      );
      const view = json(ExplainResponseSchema, reply) as Record<string, unknown>;
      return { ...view, effect: DecisionEffect[reply.decision?.effect ?? 0] };
    },
  },
];
