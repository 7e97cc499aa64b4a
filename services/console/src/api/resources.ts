/** Resources: list, read, history with diffs, discovery preview, apply (dry run first), rollback. */
import { diffDocuments } from '@tollgate/core';
import type { JsonValue } from '@bufbuild/protobuf';
import {
  ApplyResponseSchema,
  DiscoverResponseSchema,
  GetResponseSchema,
  HistoryResponseSchema,
  ListResponseSchema,
  RollbackResponseSchema,
  DeleteResponseSchema,
} from '@tollgate/contracts/registry/v1';
import { json } from '../backend/backend.js';
import {
  checkDescriptorText,
  descriptorYaml,
  locateDetails,
  readDescriptorText,
} from '../backend/descriptor-text.js';
import type { DescriptorText } from '../backend/descriptor-text.js';
import { problemOf } from '../http/problem.js';
import type { Route } from '../http/route.js';
import { flag, nameParam, optionalVersion, versionParam } from './params.js';

const KIND = 'Resource';

/** Runs `call`, and when the service names paths in the text, says where they are. */
export async function locating<T>(
  text: DescriptorText | undefined,
  call: () => Promise<T>,
): Promise<T> {
  try {
    return await call();
  } catch (err) {
    const problem = problemOf(err);
    if (problem === undefined) throw err;
    throw Object.assign(problem, { details: locateDetails(text, problem.details) });
  }
}

export const resourceRoutes: Route[] = [
  {
    method: 'GET',
    path: '/api/resources',
    needs: 'read',
    async handle({ url, session, backend }) {
      const labels: Record<string, string> = {};
      for (const pair of url.searchParams.getAll('label')) {
        const [k, v] = pair.split('=', 2);
        if (k && v !== undefined) labels[k] = v;
      }
      const reply = await backend.registry.list(
        {
          type: url.searchParams.get('type') ?? '',
          labels,
          includeDeleted: flag(url.searchParams.get('deleted')),
          pageSize: 200,
          pageToken: url.searchParams.get('pageToken') ?? '',
        },
        await backend.as(session, 'read'),
      );
      return json(ListResponseSchema, reply);
    },
  },
  {
    method: 'GET',
    path: '/api/resources/:name',
    needs: 'read',
    async handle({ params, url, session, backend }) {
      const reply = await backend.registry.get(
        {
          name: nameParam(params.name, 'name'),
          version: optionalVersion(url.searchParams.get('version'), 'version') ?? 0,
        },
        await backend.as(session, 'read'),
      );
      return {
        ...(json(GetResponseSchema, reply) as object),
        yaml: descriptorYaml(reply.resource?.descriptor ?? {}),
      };
    },
  },
  {
    method: 'GET',
    path: '/api/resources/:name/history',
    needs: 'read',
    async handle({ params, session, backend }) {
      const reply = await backend.registry.history(
        { name: nameParam(params.name, 'name'), pageSize: 100 },
        await backend.as(session, 'read'),
      );
      const versions = reply.versions;
      // Newest first: each version's changes against the one before it.
      const diffs = versions.map((v, i) =>
        diffDocuments(
          (versions[i + 1]?.descriptor as JsonValue | undefined) ?? undefined,
          (v.deleted ? undefined : (v.descriptor as JsonValue | undefined)) ?? undefined,
        ),
      );
      return { ...(json(HistoryResponseSchema, reply) as object), diffs };
    },
  },
  {
    method: 'POST',
    path: '/api/resources/check',
    needs: 'read',
    async handle({ body }) {
      return { problems: checkDescriptorText(String(body.yaml ?? ''), KIND) };
    },
  },
  {
    method: 'POST',
    path: '/api/resources/discover',
    needs: 'manage',
    async handle({ body, session, backend }) {
      const text = readDescriptorText(body.yaml, KIND);
      const reply = await locating(text, async () =>
        backend.registry.discover(
          { descriptor: text.descriptor },
          await backend.as(session, 'manage'),
        ),
      );
      return {
        ...(json(DiscoverResponseSchema, reply) as object),
        yaml: descriptorYaml(reply.descriptor ?? {}),
      };
    },
  },
  {
    method: 'POST',
    path: '/api/resources/apply',
    needs: 'manage',
    async handle({ body, session, backend }) {
      const text = readDescriptorText(body.yaml, KIND);
      const expectedVersion = optionalVersion(body.expectedVersion, 'expectedVersion');
      const reply = await locating(text, async () =>
        backend.registry.apply(
          {
            descriptor: text.descriptor,
            dryRun: flag(body.dryRun),
            ...(expectedVersion !== undefined ? { expectedVersion } : {}),
          },
          await backend.as(session, 'manage'),
        ),
      );
      return json(ApplyResponseSchema, reply);
    },
  },
  {
    method: 'POST',
    path: '/api/resources/:name/rollback',
    needs: 'manage',
    async handle({ params, body, session, backend }) {
      const expectedVersion = optionalVersion(body.expectedVersion, 'expectedVersion');
      const reply = await backend.registry.rollback(
        {
          name: nameParam(params.name, 'name'),
          toVersion: versionParam(body.toVersion, 'toVersion'),
          ...(expectedVersion !== undefined ? { expectedVersion } : {}),
        },
        await backend.as(session, 'manage'),
      );
      return json(RollbackResponseSchema, reply);
    },
  },
  {
    method: 'POST',
    path: '/api/resources/:name/delete',
    needs: 'manage',
    async handle({ params, body, session, backend }) {
      const expectedVersion = optionalVersion(body.expectedVersion, 'expectedVersion');
      const reply = await backend.registry.delete(
        {
          name: nameParam(params.name, 'name'),
          ...(expectedVersion !== undefined ? { expectedVersion } : {}),
        },
        await backend.as(session, 'manage'),
      );
      return json(DeleteResponseSchema, reply);
    },
  },
];
