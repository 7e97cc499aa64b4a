import { describe, expect, test } from 'vitest';
import { applyDescriptorDefaults } from './bound.js';
import { canonicalJson, descriptorHash } from '@tollgate/core';
import { formatPath, parsePath, pointerSegments } from '@tollgate/core';
import { describeDescriptorProblems, descriptorInvalid } from '@tollgate/core';
import type { Descriptor, ResourceDescriptor } from '@tollgate/core';
import { validAgent, validResource } from './descriptor-cases.js';

const resource = (): ResourceDescriptor => validResource() as unknown as ResourceDescriptor;

describe('descriptor defaults', () => {
  test('defaults - fills readonly, maxLimit, timeoutMs and capabilities without touching the input', () => {
    const input = resource();
    delete input.spec.access.readonly;
    delete input.spec.access.maxLimit;
    const before = structuredClone(input);
    const filled = applyDescriptorDefaults(input);
    expect(input).toEqual(before);
    expect(filled.spec.access).toMatchObject({ readonly: true, maxLimit: 100 });
    expect(filled.spec.connection.timeoutMs).toBe(5000);
    expect(filled.spec.schema.fields.id).toEqual({
      type: 'keyword',
      description: 'Order id',
      filterable: true,
      returnable: true,
      sortable: false,
      range: false,
      searchable: false,
      aggregatable: false,
    });
  });

  test('defaults - explicit values win', () => {
    const input = resource();
    input.spec.access.readonly = false;
    input.spec.access.maxLimit = 7;
    input.spec.connection.timeoutMs = 250;
    const filled = applyDescriptorDefaults(input);
    expect([
      filled.spec.access.readonly,
      filled.spec.access.maxLimit,
      filled.spec.connection.timeoutMs,
    ]).toEqual([false, 7, 250]);
  });

  test('defaults - agents and policies come back as equal copies', () => {
    const agent = validAgent() as unknown as Descriptor;
    const filled = applyDescriptorDefaults(agent);
    expect(filled).toEqual(agent);
    expect(filled).not.toBe(agent);
  });
});

describe('canonical JSON and descriptor hash', () => {
  test('canonical - key order does not matter, at any depth', () => {
    const a = { b: 1, a: { d: [3, { y: 1, x: 2 }], c: 'x' } };
    const b = { a: { c: 'x', d: [3, { x: 2, y: 1 }] }, b: 1 };
    expect(canonicalJson(a)).toBe('{"a":{"c":"x","d":[3,{"x":2,"y":1}]},"b":1}');
    expect(canonicalJson(b)).toBe(canonicalJson(a));
  });

  test('canonical - array order matters, undefined members are left out, keys sort by code unit', () => {
    expect(canonicalJson([2, 1])).not.toBe(canonicalJson([1, 2]));
    expect(canonicalJson({ a: undefined, b: null, c: [undefined] })).toBe('{"b":null,"c":[null]}');
    expect(canonicalJson({ b: 1, B: 2, a: 3, é: 4 })).toBe('{"B":2,"a":3,"b":1,"é":4}');
    expect(canonicalJson({ at: new Date(0) })).toBe('{"at":"1970-01-01T00:00:00.000Z"}');
  });

  test('canonical - values JSON cannot hold throw instead of changing silently', () => {
    const cyclic: Record<string, unknown> = {};
    cyclic.self = cyclic;
    for (const bad of [Number.NaN, Number.POSITIVE_INFINITY, 1n, () => 1, cyclic]) {
      expect(() => canonicalJson(bad)).toThrow(TypeError);
    }
  });

  test('hash - equal descriptors hash equally whatever their key order; any change changes it', () => {
    const a = resource();
    const reordered = JSON.parse(canonicalJson(a)) as ResourceDescriptor;
    expect(descriptorHash(reordered)).toBe(descriptorHash(a));
    expect(descriptorHash(a)).toMatch(/^[0-9a-f]{64}$/);
    const changed = resource();
    changed.spec.access.maxLimit = 99;
    expect(descriptorHash(changed)).not.toBe(descriptorHash(a));
  });
});

describe('problem reporting', () => {
  const problems = [
    { path: 'spec.access.maxLimit', message: 'expected integer between 1 and 1000, found "ten"' },
    {
      path: '',
      message: 'invalid YAML: Map keys must be unique',
      source: 'orders.yaml',
      line: 3,
      column: 1,
    },
    {
      path: 'spec.connection.password',
      message: 'looks like a secret (URL with user:password); …',
      line: 9,
      column: 5,
    },
  ];

  test('describe - one line per problem, with source and position when known', () => {
    expect(describeDescriptorProblems(problems)).toBe(
      [
        'spec.access.maxLimit: expected integer between 1 and 1000, found "ten"',
        'orders.yaml:3:1: (document): invalid YAML: Map keys must be unique',
        '9:5: spec.connection.password: looks like a secret (URL with user:password); …',
      ].join('\n'),
    );
  });

  test('error - DESCRIPTOR_INVALID carries every problem as details', () => {
    const error = descriptorInvalid(problems);
    expect(error.code).toBe('DESCRIPTOR_INVALID');
    expect(error.category).toBe('fix_arguments');
    expect(error.message).toBe(
      'descriptor invalid (3 problems): spec.access.maxLimit: expected integer between 1 and 1000, found "ten"',
    );
    expect(error.details).toEqual(problems.map(({ path, message }) => ({ path, message })));
  });
});

describe('paths', () => {
  test('path - identifiers dotted, indexes and other keys bracketed, and back', () => {
    const segments = ['spec', 'schema', 'fields', 'customer.email', 'type'];
    expect(formatPath(segments)).toBe('spec.schema.fields["customer.email"].type');
    expect(formatPath(['spec', 'grants', 0, 'actions', 1])).toBe('spec.grants[0].actions[1]');
    expect(formatPath(['a b', 'c'])).toBe('["a b"].c');
    for (const path of [
      'spec.schema.fields["customer.email"].type',
      'spec.grants[0].actions[1]',
      '["a b"].c',
      '',
    ]) {
      expect(formatPath(parsePath(path))).toBe(path);
    }
  });

  test('path - JSON pointers tell array indexes from numeric keys', () => {
    const root = { labels: { '0': 'x' }, list: ['y'], 'a/b': { '~': 1 } };
    expect(pointerSegments('/labels/0', root)).toEqual(['labels', '0']);
    expect(pointerSegments('/list/0', root)).toEqual(['list', 0]);
    expect(pointerSegments('/a~1b/~0', root)).toEqual(['a/b', '~']);
    expect(formatPath(pointerSegments('/labels/0', root))).toBe('labels["0"]');
  });
});
