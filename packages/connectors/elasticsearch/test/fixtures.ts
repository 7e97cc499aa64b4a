import type {
  CompileContext,
  PermissionSet,
  ResourceDescriptor,
  ResourceSpec,
} from '@tollgate/core';

/** An orders resource exercising every field type, redaction rule and the row filter. */
export function ordersDescriptor(
  overrides: Partial<ResourceDescriptor['spec']['access']> = {},
): ResourceDescriptor {
  return {
    apiVersion: 'tollgate.dev/v1',
    kind: 'Resource',
    metadata: { name: 'es_orders', tenant: 'team-a', environment: 'test' },
    spec: {
      type: 'elasticsearch',
      connection: { endpoint: 'http://127.0.0.1:9200', timeoutMs: 2000 },
      target: { index: 'orders' },
      schema: {
        fields: {
          id: {
            type: 'keyword',
            filterable: true,
            returnable: true,
            sortable: true,
            aggregatable: true,
          },
          tenant_id: { type: 'keyword', filterable: true, returnable: true },
          status: {
            type: 'keyword',
            filterable: true,
            returnable: true,
            sortable: true,
            aggregatable: true,
          },
          amount: {
            type: 'double',
            filterable: true,
            range: true,
            returnable: true,
            sortable: true,
            aggregatable: true,
          },
          quantity: { type: 'integer', filterable: true, range: true, returnable: true },
          created_at: {
            type: 'date',
            filterable: true,
            range: true,
            returnable: true,
            sortable: true,
            aggregatable: true,
          },
          note: { type: 'text', searchable: true, returnable: true },
          internal_note: { type: 'text', returnable: false },
          email: { type: 'keyword', filterable: true, returnable: true },
          card: { type: 'keyword', returnable: true },
          user_ref: { type: 'keyword', returnable: true, aggregatable: true },
          risk_score: { type: 'long', returnable: true },
          paid: { type: 'boolean', filterable: true, returnable: true, aggregatable: true },
          client_ip: { type: 'ip', filterable: true, returnable: true },
          'customer.name': { type: 'keyword', filterable: true, returnable: true },
          'customer.tier': { type: 'keyword', returnable: true },
        },
      },
      access: {
        allowedRoles: ['support'],
        readonly: false,
        maxLimit: 50,
        redact: { email: 'mask', card: 'last4', user_ref: 'hash', risk_score: 'drop' },
        rowFilter: { field: 'tenant_id', equals: 'principal.tenant' },
        ...overrides,
      },
    } as ResourceSpec,
  };
}

/** Everything returnable is visible; everything filterable, ranged or searchable is filterable. */
export function fullPermissions(
  descriptor: ResourceDescriptor = ordersDescriptor(),
): PermissionSet {
  const fields = Object.entries(descriptor.spec.schema.fields);
  return {
    operations: ['search', 'get', 'count', 'aggregate', 'write'],
    visibleFields: fields
      .filter(([, spec]) => spec.returnable === true)
      .map(([name]) => name)
      .sort(),
    filterableFields: fields
      .filter(
        ([, spec]) => spec.filterable === true || spec.range === true || spec.searchable === true,
      )
      .map(([name]) => name)
      .sort(),
    limitCap: 50,
  };
}

export function context(overrides: Partial<CompileContext> = {}): CompileContext {
  const descriptor = overrides.descriptor ?? ordersDescriptor();
  return {
    descriptor,
    permissions: fullPermissions(descriptor),
    principal: { tenant: 'team-a', agent: 'support_bot', user: 'u-1' },
    cursorKey: 'test-cursor-key',
    ...overrides,
  };
}

/** The row filter clause every compiled query for team-a starts with. */
export const TEAM_A = { term: { tenant_id: { value: 'team-a' } } };
