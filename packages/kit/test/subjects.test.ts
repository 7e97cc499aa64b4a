import { describe, expect, it } from 'vitest';
import { EventTypes, resourceKey, subjects } from '../src/index.js';

describe('subjects', () => {
  it('subjects - call and event subjects follow DESIGN §4–§5', () => {
    expect(subjects.call('elasticsearch', 'es_orders')).toBe(
      'tollgate.v1.call.elasticsearch.es_orders',
    );
    expect(subjects.callsOfKind('elasticsearch')).toBe('tollgate.v1.call.elasticsearch.*');
    expect(subjects.event(EventTypes.callCompleted)).toBe('tollgate.v1.evt.call.completed');
    expect(resourceKey('team-a', 'prod', 'es_orders')).toBe('team-a.prod.es_orders');
  });

  it('subjects - tokens that would break a subject are refused', () => {
    expect(() => subjects.call('elasticsearch', 'orders.*')).toThrow(
      'invalid resource for a NATS subject: "orders.*"',
    );
    expect(() => subjects.call('elastic search', 'x')).toThrow('invalid kind');
    expect(() => resourceKey('team a', 'prod', 'x')).toThrow('invalid tenant');
  });
});
