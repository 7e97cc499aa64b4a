/**
 * The postgres connector driven the way the executor drives it: a descriptor, a permission
 * set and a principal; compile → execute → shape. Discovery merged with the declaration
 * through core's `mergeSchema`, as the registry does.
 */
import { mergeSchema } from '@tollgate/core';
import type {
  CallPrincipal,
  CompileContext,
  CredentialResolver,
  FieldSpec,
  PermissionSet,
  ResourceDescriptor,
} from '@tollgate/core';
import type { SqlResourceSpec } from '@tollgate/connector-sql';

import { postgresConnector } from '../src/index.js';

export const connector = postgresConnector;

/** A resource descriptor around `spec`. */
export function descriptorOf(name: string, spec: SqlResourceSpec): ResourceDescriptor {
  return {
    apiVersion: 'tollgate.dev/v1',
    kind: 'Resource',
    metadata: { name, tenant: 'team-a', environment: 'test' },
    spec: spec as unknown as ResourceDescriptor['spec'],
  };
}

/** The spec with its declared fields merged with what discovery reads (issues returned too). */
export async function discovered(spec: SqlResourceSpec, credentials: CredentialResolver) {
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
}

/** A full permission set from the lists a test cares about. */
export function permissionSet(
  permissions: Pick<
    PermissionSet,
    'operations' | 'visibleFields' | 'filterableFields' | 'limitCap'
  > &
    Partial<PermissionSet>,
): PermissionSet {
  return { ...permissions };
}

function compileContext(
  resource: string,
  spec: SqlResourceSpec,
  permissions: PermissionSet,
  principal: CallPrincipal,
): CompileContext {
  return {
    descriptor: descriptorOf(resource, spec),
    permissions,
    principal,
    cursorKey: 'test-key',
  };
}

/** compile only (pure). */
export function compilePostgres(
  operation: string,
  args: unknown,
  call: {
    resource: string;
    spec: SqlResourceSpec;
    permissions: PermissionSet;
    principal: CallPrincipal;
  },
) {
  return connector.compile(
    operation,
    args,
    compileContext(call.resource, call.spec, call.permissions, call.principal),
  );
}

/** compile → execute → shape, as the executor wires them, for one call. */
export async function callPostgres(
  resource: string,
  spec: SqlResourceSpec,
  permissions: PermissionSet,
  principal: CallPrincipal,
  credentials: CredentialResolver,
  operation: string,
  args: unknown,
) {
  const ctx = compileContext(resource, spec, permissions, principal);
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
}
