/**
 * Shared builders for descriptor tests: small valid descriptors of each kind and a way to
 * derive a malformed one by editing a copy.
 */
import type { Descriptor } from '@tollgate/core';

/** A small valid Resource touching the main features. */
export function validResource(): Record<string, unknown> {
  return {
    apiVersion: 'tollgate.dev/v1',
    kind: 'Resource',
    metadata: {
      name: 'es_orders',
      tenant: 'team-a',
      environment: 'prod',
      description: 'Orders placed in the web shop, one document per order.',
      labels: { domain: 'orders' },
    },
    spec: {
      type: 'elasticsearch',
      connection: {
        endpoint: 'http://es.internal:9200',
        credentialRef: 'vault://team-a/es-orders-readonly',
      },
      target: { index: 'orders' },
      schema: {
        fields: {
          id: { type: 'keyword', filterable: true, returnable: true, description: 'Order id' },
          user_id: { type: 'keyword', filterable: true, returnable: true },
          amount: { type: 'double', range: true, returnable: true },
          created_at: { type: 'date', range: true, returnable: true },
          internal_note: { type: 'text', returnable: false },
          location: { type: 'geo_point', returnable: true },
          items: { type: 'nested', returnable: true },
        },
      },
      access: {
        allowedRoles: ['order_ops', 'support'],
        readonly: true,
        maxLimit: 100,
        fieldRoles: { user_id: ['order_ops'] },
        redact: { user_id: 'mask' },
      },
    },
  };
}

/** A valid Agent. */
export function validAgent(): Record<string, unknown> {
  return {
    apiVersion: 'tollgate.dev/v1',
    kind: 'Agent',
    metadata: { name: 'customer_service_v2', tenant: 'team-a' },
    spec: { roles: ['support'], description: 'Front-line support bot' },
  };
}

/** A valid Policy with one grant of each effect. */
export function validPolicy(): Record<string, unknown> {
  return {
    apiVersion: 'tollgate.dev/v1',
    kind: 'Policy',
    metadata: { name: 'support-read-orders', tenant: 'team-a' },
    spec: {
      grants: [
        {
          effect: 'allow',
          principals: { roles: ['support'] },
          actions: ['es_orders.search', 'es_orders.get'],
          conditions: { ipCidr: ['10.0.0.0/8'], timeWindow: '08:00-20:00 Asia/Shanghai' },
        },
        {
          effect: 'require_approval',
          principals: { roles: ['order_ops'] },
          actions: ['es_orders.write'],
        },
      ],
    },
  };
}

/** Any value reachable in a descriptor, for editing in place. */
export type Editable = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

/** A copy of `base` changed by `edit`. */
export function edited(base: () => Record<string, unknown>, edit: (d: Editable) => void): unknown {
  const copy = base() as Editable;
  edit(copy);
  return copy;
}

export type { Descriptor };
