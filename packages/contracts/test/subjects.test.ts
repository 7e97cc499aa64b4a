import { describe, expect, it } from 'vitest';
import { EventTypes, resourceKey, subjects } from '../src/index.js';

describe('subjects', () => {
  it('subjects - call and event subjects follow DESIGN §4–§5', () => {
    expect(subjects.call('elasticsearch', 'es_orders')).toBe(
      'tollgate.v1.call.elasticsearch.es_orders',
    );
    expect(subjects.callsOfKind('elasticsearch')).toBe('tollgate.v1.call.elasticsearch.*');
    expect(subjects.event(EventTypes.callCompleted, 'team-a')).toBe(
      'tollgate.v1.evt.call.completed.team-a',
    );
    expect(subjects.event(EventTypes.callDenied, '')).toBe('tollgate.v1.evt.call.denied._');
    expect(subjects.eventsOf(EventTypes.callCompleted)).toBe('tollgate.v1.evt.call.completed.*');
    expect(resourceKey('team-a', 'prod', 'es_orders')).toBe('team-a.prod.es_orders');
  });

  it('subjects - tokens that would break a subject are refused', () => {
    expect(() => subjects.call('elasticsearch', 'orders.*')).toThrow(
      'invalid resource for a NATS subject: "orders.*"',
    );
    expect(() => subjects.call('elastic search', 'x')).toThrow('invalid kind');
    expect(() => resourceKey('team a', 'prod', 'x')).toThrow('invalid tenant');
    // A tenant cannot widen the subject its events go to (and so who may read them).
    expect(() => subjects.event(EventTypes.callCompleted, 'team-a.>')).toThrow('invalid tenant');
    expect(() => subjects.event(EventTypes.callCompleted, '*')).toThrow('invalid tenant');
  });
});
