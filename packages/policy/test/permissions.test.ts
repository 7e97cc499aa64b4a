import { describe, expect, test } from 'vitest';
import { LocalDecider } from '../src/index.js';
import { TENANT, compiled, ordersInputs, policy } from './fixtures.js';

const as = (agent: string, environment = 'prod') => ({ tenant: TENANT, agent, environment });

describe('permissionSet - two agents, one resource', () => {
  const decider = LocalDecider.fromBundle(compiled());

  test('permissionSet - order_ops sees every field and may write with approval', () => {
    expect(decider.permissionSet(as('ops_bot'), 'es_orders')).toEqual({
      operations: ['search', 'get', 'count', 'aggregate', 'write'],
      visibleFields: ['amount', 'created_at', 'email', 'id', 'user_id'],
      filterableFields: ['amount', 'created_at', 'id', 'user_id'],
      limitCap: 100,
      conditionalOperations: [],
      approvalOperations: ['write'],
    });
  });

  test('permissionSet - support gets conditional reads without the fieldRoles fields', () => {
    expect(decider.permissionSet(as('support_bot'), 'es_orders')).toEqual({
      operations: ['search', 'get'],
      visibleFields: ['amount', 'created_at', 'id'],
      filterableFields: ['amount', 'created_at', 'id'],
      limitCap: 100,
      conditionalOperations: ['search', 'get'],
      approvalOperations: [],
    });
  });
});

describe('permissionSet - other shapes', () => {
  const inputs = ordersInputs();
  inputs.policies.push(
    policy(
      'small-pages',
      [],
      'forbid (principal, action == Action::"search", resource == Resource::"es_customers")\nwhen { context has limit && context.limit > 10 } unless { principal in Role::"order_ops" };',
    ),
  );
  const decider = LocalDecider.fromBundle(compiled(inputs));

  test('permissionSet - a Cedar cap lowers the limit cap for some principals only', () => {
    expect(decider.permissionSet(as('support_bot'), 'es_customers').limitCap).toBe(10);
    expect(decider.permissionSet(as('ops_bot'), 'es_customers').limitCap).toBe(50);
  });

  test('permissionSet - a read-only resource never offers write, whatever grants say', () => {
    expect(decider.permissionSet(as('analyst'), 'es_customers')).toMatchObject({
      operations: ['count', 'aggregate'],
      visibleFields: ['amount', 'created_at', 'email', 'id', 'user_id'],
    });
  });

  test('permissionSet - approval winning over allow is reported', () => {
    expect(decider.permissionSet(as('ops_bot'), 'es_invoices')).toMatchObject({
      operations: ['search'],
      approvalOperations: ['search'],
    });
  });

  test('permissionSet - a time-window grant is offered and decided per call', () => {
    expect(decider.permissionSet(as('night_batch'), 'es_orders')).toMatchObject({
      operations: ['count'],
      conditionalOperations: ['count'],
    });
  });

  test('permissionSet - deny *.* leaves nothing', () => {
    expect(decider.permissionSet(as('intern_bot'), 'es_customers')).toEqual({
      operations: [],
      visibleFields: [],
      filterableFields: [],
      limitCap: 0,
      conditionalOperations: [],
      approvalOperations: [],
    });
  });

  test('permissionSet - environment decides', () => {
    expect(decider.permissionSet(as('auditor'), 'es_audit').operations).toEqual([]);
    expect(decider.permissionSet(as('auditor', 'staging'), 'es_audit').operations).toEqual([
      'search',
      'get',
      'count',
      'aggregate',
    ]);
  });

  test('permissionSet - unknown agent, other tenant or unknown resource get nothing', () => {
    expect(decider.permissionSet(as('ghost'), 'es_orders').operations).toEqual([]);
    expect(
      decider.permissionSet({ ...as('ops_bot'), tenant: 'team-b' }, 'es_orders').operations,
    ).toEqual([]);
    expect(decider.permissionSet(as('ops_bot'), 'es_nothing').operations).toEqual([]);
    expect(decider.permissionSet(as('ops_bot'), 'es_nothing').unavailable).toBeUndefined();
  });

  test('permissionSet - a decision never allows what the set does not offer', () => {
    for (const agent of [
      'ops_bot',
      'support_bot',
      'analyst',
      'night_batch',
      'intern_bot',
      'nobody',
    ]) {
      for (const resource of ['es_orders', 'es_customers', 'es_invoices']) {
        const offered = decider.permissionSet(as(agent), resource).operations;
        for (const action of ['search', 'get', 'count', 'aggregate', 'write'] as const) {
          for (const now of [
            Date.parse('2025-06-02T02:00:00Z'),
            Date.parse('2025-06-02T21:30:00Z'),
          ]) {
            const decision = decider.decide(as(agent), action, resource, {
              sourceIp: '10.1.2.3',
              now,
            });
            if (decision.decision !== 'deny') expect(offered).toContain(action);
          }
        }
      }
    }
  });
});
