/**
 * A SQL kind's connector driven the way the executor drives it: a descriptor, a permission set
 * and a principal; compile → execute → shape. Discovery merged with the declaration through
 * core's `mergeSchema`, as the registry does. Each SQL kind's tests build theirs with `sqlHarness`.
 */
import { randomBytes } from 'node:crypto';

import { mergeSchema, parseCredentialSecret } from '@tollgate/core';
import type {
  CallPrincipal,
  CompileContext,
  Connector,
  CredentialResolver,
  FieldSpec,
  PermissionSet,
  ResourceDescriptor,
} from '@tollgate/core';

import type { SqlRequest, SqlResourceSpec } from '../src/index.js';

/** A name unique to this test run (schemas, databases, logins). */
export function unique(prefix: string): string {
  return `${prefix}_${randomBytes(4).toString('hex')}`;
}

/** Where a test login's secret lives: resolved like the executor would, from env. */
export const testCredentials: CredentialResolver = (ref) => {
  const name = ref.replace(/^env:\/\//, '');
  const value = process.env[name];
  if (value === undefined) return Promise.reject(new Error(`no ${name}`));
  return Promise.resolve(parseCredentialSecret(value));
};

/** A resource descriptor around `spec`. */
export function descriptorOf(name: string, spec: SqlResourceSpec): ResourceDescriptor {
  return {
    apiVersion: 'tollgate.dev/v1',
    kind: 'Resource',
    metadata: { name, tenant: 'team-a', environment: 'test' },
    spec: spec as unknown as ResourceDescriptor['spec'],
  };
}

/** One call as a test names it. */
export interface SqlTestCall {
  resource: string;
  spec: SqlResourceSpec;
  permissions: PermissionSet;
  principal: CallPrincipal;
}

function compileContext(call: SqlTestCall): CompileContext {
  return {
    descriptor: descriptorOf(call.resource, call.spec),
    permissions: call.permissions,
    principal: call.principal,
    cursorKey: 'test-key',
  };
}

/** discover, compile and call for one SQL kind's connector. */
export function sqlHarness(connector: Connector<SqlRequest>) {
  return {
    /** The spec with its declared fields merged with what discovery reads (issues returned too). */
    async discovered(spec: SqlResourceSpec, credentials: CredentialResolver) {
      const schema = await connector.discover(spec as never, credentials);
      const merged = mergeSchema(
        spec.schema.fields as unknown as Record<string, FieldSpec>,
        schema,
        connector.fieldFamily,
      );
      return {
        schema,
        merged,
        spec: {
          ...spec,
          schema: { fields: merged.fields as unknown as SqlResourceSpec['schema']['fields'] },
        },
      };
    },
    /** compile only (pure). */
    compile(operation: string, args: unknown, call: SqlTestCall) {
      return connector.compile(operation, args, compileContext(call));
    },
    /** compile → execute → shape, as the executor wires them, for one call. */
    async call(
      resource: string,
      spec: SqlResourceSpec,
      permissions: PermissionSet,
      principal: CallPrincipal,
      credentials: CredentialResolver,
      operation: string,
      args: unknown,
    ) {
      const ctx = compileContext({ resource, spec, permissions, principal });
      const request = connector.compile(operation, args, ctx);
      const upstream = await connector.execute(request, {
        descriptor: ctx.descriptor,
        credentials,
        deadline: Date.now() + 20_000,
      });
      return connector.shape(operation, upstream, {
        descriptor: ctx.descriptor,
        permissions,
        request,
      });
    },
  };
}
