import { TABLE_OPERATIONS } from '@tollgate/core';
import type {
  AgentDescriptor,
  Grant,
  OperationSpec,
  PolicyDescriptor,
  ResourceDescriptor,
  ResourceSpec,
} from '@tollgate/core';
import type { BundleInputs, PolicyBundle, VersionedResource } from '../src/index.js';
import { compileBundle } from '../src/index.js';

export const TENANT = 'team-a';

export function agent(name: string, roles: string[], tenant = TENANT): AgentDescriptor {
  return {
    apiVersion: 'tollgate.dev/v1',
    kind: 'Agent',
    metadata: { name, tenant },
    spec: { roles },
  };
}

export function policy(
  name: string,
  grants: Grant[],
  cedar?: string,
  tenant = TENANT,
): PolicyDescriptor {
  return {
    apiVersion: 'tollgate.dev/v1',
    kind: 'Policy',
    metadata: { name, tenant },
    spec: { grants, ...(cedar !== undefined ? { cedar } : {}) },
  };
}

export function resource(
  name: string,
  access: ResourceDescriptor['spec']['access'],
  options: { environment?: string; tenant?: string; version?: number } = {},
): VersionedResource {
  return {
    version: options.version ?? 1,
    operations: tableOperationsOf(access.readonly === false),
    descriptor: {
      apiVersion: 'tollgate.dev/v1',
      kind: 'Resource',
      metadata: {
        name,
        tenant: options.tenant ?? TENANT,
        environment: options.environment ?? 'prod',
      },
      spec: {
        type: 'elasticsearch',
        connection: { endpoint: 'http://es.internal:9200', credentialRef: 'env://ES_KEY' },
        target: { index: name },
        schema: {
          fields: {
            id: { type: 'keyword', filterable: true, returnable: true },
            user_id: { type: 'keyword', filterable: true, returnable: true },
            amount: { type: 'double', range: true, returnable: true },
            created_at: { type: 'date', range: true, returnable: true, sortable: true },
            internal_note: { type: 'text', returnable: false },
            email: { type: 'keyword', returnable: true },
          },
        },
        access,
      } as ResourceSpec,
    },
  };
}

/** The table family's operations of a resource with an upsert: reads, and `write` when writable. */
export function tableOperationsOf(writable: boolean): OperationSpec[] {
  return TABLE_OPERATIONS.filter((op) => op.class === 'read' || (writable && op.name === 'write'));
}

/**
 * The orders scenario: support reads orders from the office network during Shanghai office
 * hours, order_ops may write with approval, a night batch runs across midnight in Berlin.
 */
export function ordersInputs(): BundleInputs {
  return {
    tenant: TENANT,
    version: 7,
    agents: [
      agent('support_bot', ['support']),
      agent('ops_bot', ['order_ops']),
      agent('night_batch', ['batch']),
      agent('auditor', ['auditor']),
      agent('intern_bot', ['support', 'intern']),
      agent('nobody', []),
      agent('analyst', ['analyst']),
    ],
    resources: [
      resource('es_orders', {
        allowedRoles: ['order_ops'],
        readonly: false,
        maxLimit: 100,
        fieldRoles: { user_id: ['order_ops'], email: ['order_ops'] },
      }),
      resource('es_customers', { allowedRoles: ['support', 'order_ops'], maxLimit: 50 }),
      resource('es_audit', { allowedRoles: ['auditor'], maxLimit: 20 }, { environment: 'staging' }),
      resource('es_invoices', { allowedRoles: [], readonly: false, maxLimit: 200 }),
    ],
    policies: [
      policy('support-read-orders', [
        {
          effect: 'allow',
          principals: { roles: ['support'] },
          actions: ['es_orders.search', 'es_orders.get'],
          conditions: {
            ipCidr: ['10.0.0.0/8', '2001:db8::/32'],
            timeWindow: '08:00-20:00 Asia/Shanghai',
          },
          rateLimit: { requests: 60, perSeconds: 60 },
        },
        {
          effect: 'require_approval',
          principals: { roles: ['order_ops'] },
          actions: ['es_orders.write'],
        },
      ]),
      policy('night-batch', [
        {
          effect: 'allow',
          principals: { agents: ['night_batch'] },
          actions: ['es_orders.count', 'es_invoices.*'],
          conditions: { timeWindow: '22:00-06:00 Europe/Berlin' },
        },
      ]),
      policy('analysts', [
        {
          effect: 'allow',
          principals: { roles: ['analyst'] },
          actions: ['*.count', '*.aggregate'],
        },
        { effect: 'allow', principals: { roles: ['analyst'] }, actions: ['es_invoices.write'] },
        { effect: 'allow', principals: { roles: ['analyst'] }, actions: ['es_customers.write'] },
        {
          effect: 'allow',
          principals: { roles: ['analyst'] },
          actions: ['es_audit.search'],
          conditions: { environment: ['staging'] },
        },
      ]),
      policy('guards', [
        { effect: 'deny', principals: { roles: ['intern'] }, actions: ['*.*'] },
        {
          effect: 'deny',
          principals: { roles: ['order_ops'] },
          actions: ['es_customers.search'],
          conditions: { ipCidr: ['192.168.0.0/16'] },
        },
        { effect: 'allow', principals: { roles: ['order_ops'] }, actions: ['es_invoices.search'] },
        {
          effect: 'require_approval',
          principals: { agents: ['ops_bot'] },
          actions: ['es_invoices.search'],
        },
      ]),
    ],
  };
}

export function compiled(inputs: BundleInputs = ordersInputs()): PolicyBundle {
  const result = compileBundle(inputs);
  if (!result.ok)
    throw new Error(`bundle did not compile: ${JSON.stringify(result.problems, null, 2)}`);
  return result.bundle;
}

/** 2025-06-02 (a Monday) at the given UTC time. */
export function utc(hhmm: string): number {
  return Date.parse(`2025-06-02T${hhmm}:00Z`);
}
