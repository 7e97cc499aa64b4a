import { describe, expect, it } from 'vitest';
import { EventTypes, isCallSubject, resourceKey, subjects } from '../src/bus/index.js';

describe('subjects', () => {
  it('subjects - calls on tollgate.v1.call, events per tenant on tollgate.v1.evt, endpoints on tollgate.v1.svc', () => {
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

  it('subjects - the named endpoints are the ones the functions build, and agents may publish only to call subjects', () => {
    expect(subjects.listTools).toBe(subjects.service('synthesizer', 'list_tools'));
    expect(subjects.getTool).toBe(subjects.service('synthesizer', 'get_tool'));
    expect(subjects.callResult).toBe(subjects.service('executor', 'call_result'));
    expect(isCallSubject(subjects.call('elasticsearch', 'es_orders'))).toBe(true);
    for (const subject of [
      'tollgate.v1.call.elasticsearch.*',
      'tollgate.v1.call.elasticsearch.>',
      'tollgate.v1.call.elasticsearch',
      'tollgate.v1.svc.synthesizer.list_tools',
      'tollgate.v1.call.elasticsearch.es_orders.extra',
    ]) {
      expect(isCallSubject(subject)).toBe(false);
    }
  });
});
