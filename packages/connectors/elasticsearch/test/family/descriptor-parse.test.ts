import { readFileSync } from 'node:fs';
import { describe, expect, test } from 'vitest';
import { parseDescriptors } from './bound.js';
import { describeDescriptorProblems } from '@tollgate/core';

const fixture = (name: string): string =>
  readFileSync(new URL(`../../../../core/test/fixtures/${name}`, import.meta.url), 'utf8');

const AGENT = (name: string): string =>
  `apiVersion: tollgate.dev/v1\nkind: Agent\nmetadata: { name: ${name}, tenant: team-a }\nspec: { roles: [support] }\n`;

describe('descriptor parsing', () => {
  test('parse - the shared fixtures are valid', () => {
    const kinds = ['es_orders.resource.yaml', 'agents.yaml', 'policy.yaml'].flatMap((file) =>
      parseDescriptors(fixture(file), file).documents.map((doc) => {
        expect(doc.result).toMatchObject({ ok: true });
        return doc.result.ok
          ? `${doc.result.descriptor.kind}/${doc.result.descriptor.metadata.name}`
          : '';
      }),
    );
    expect(kinds).toEqual([
      'Resource/es_orders',
      'Agent/support',
      'Agent/order_ops',
      'Policy/orders-access',
    ]);
  });

  test('parse - the resource fixture declares every field type', () => {
    const [doc] = parseDescriptors(fixture('es_orders.resource.yaml')).documents;
    const descriptor = doc?.result.ok ? doc.result.descriptor : undefined;
    const types =
      descriptor?.kind === 'Resource'
        ? Object.values(descriptor.spec.schema.fields).map((f) => f.type)
        : [];
    expect(new Set(types)).toEqual(
      new Set([
        'keyword',
        'text',
        'long',
        'integer',
        'double',
        'scaled_float',
        'date',
        'boolean',
        'ip',
        'object',
        'nested',
        'geo_point',
      ]),
    );
  });

  test('parse - one bad document among good ones is reported with its own index and lines', () => {
    const text = `${AGENT('first_bot')}---\n${AGENT('second_bot').replace('roles: [support]', 'roles: []')}---\n${AGENT('third_bot')}`;
    const { documents } = parseDescriptors(text, 'agents.yaml');
    expect(documents.map((d) => [d.index, d.line, d.result.ok])).toEqual([
      [0, 1, true],
      [1, 6, false],
      [2, 11, true],
    ]);
    const bad = documents[1]?.result;
    expect(bad?.ok === false && describeDescriptorProblems(bad.problems)).toBe(
      'agents.yaml:9:9: spec.roles: expected non-empty list of strings matching [a-z][a-z0-9_-]{1,62}, found an empty list',
    );
  });

  test('parse - problems point at the offending key, missing keys at their parent', () => {
    const text = [
      'apiVersion: tollgate.dev/v1',
      'kind: Agent',
      'metadata:',
      '  name: support',
      'spec:',
      '  description: no roles here',
      '  model: gpt-4',
    ].join('\n');
    const [doc] = parseDescriptors(text).documents;
    expect(
      doc?.result.ok === false && doc.result.problems.map((p) => [p.path, p.line, p.column]),
    ).toEqual([
      ['metadata.tenant', 3, 1],
      ['spec.roles', 5, 1],
      ['spec.model', 7, 3],
    ]);
  });

  test('parse - YAML syntax errors carry line and column', () => {
    const text = `${AGENT('first_bot')}---\nkind: Agent\nmetadata: { name: [unclosed\n`;
    const { documents } = parseDescriptors(text, 'broken.yaml');
    expect(documents[0]?.result.ok).toBe(true);
    const bad = documents[1]?.result;
    expect(bad?.ok).toBe(false);
    const first = bad?.ok === false ? bad.problems[0] : undefined;
    expect(first).toMatchObject({ path: '', source: 'broken.yaml', line: 8, column: 1 });
    expect(first?.message).toMatch(/^invalid YAML: /);
  });

  test('parse - duplicate keys are errors', () => {
    const text =
      'apiVersion: tollgate.dev/v1\nkind: Agent\nkind: Policy\nmetadata: { name: bot, tenant: t }\nspec: { roles: [a1] }\n';
    const [doc] = parseDescriptors(text).documents;
    expect(doc?.result).toEqual({
      ok: false,
      problems: [
        { path: '', message: 'invalid YAML: Map keys must be unique', line: 3, column: 1 },
      ],
    });
  });

  test('parse - JSON input and empty trailing documents', () => {
    const json = JSON.stringify({
      apiVersion: 'tollgate.dev/v1',
      kind: 'Agent',
      metadata: { name: 'json_bot', tenant: 't' },
      spec: { roles: ['support'] },
    });
    expect(parseDescriptors(json).documents.map((d) => d.result.ok)).toEqual([true]);
    expect(parseDescriptors(`${AGENT('yaml_bot')}---\n`).documents).toHaveLength(1);
    expect(parseDescriptors('').documents).toEqual([]);
    const [explicitNull] = parseDescriptors('--- null\n').documents;
    expect(explicitNull?.result.ok === false && explicitNull.result.problems[0]?.message).toBe(
      'expected object with apiVersion, kind, metadata and spec, found null',
    );
  });

  test('parse - YAML 1.1 booleans stay strings and unknown tags are errors', () => {
    const [yes] = parseDescriptors(AGENT('bot_one').replace('[support]', '[yes]')).documents;
    expect(yes?.result.ok).toBe(true);
    const [tagged] = parseDescriptors(
      AGENT('bot_two').replace('[support]', '[!secret support]'),
    ).documents;
    expect(tagged?.result.ok === false && tagged.result.problems[0]?.message).toMatch(
      /^invalid YAML: .*!secret/,
    );
  });

  test('parse - alias bombs are refused', () => {
    const lines = ['a: &a [x, x, x, x, x, x, x, x, x, x]'];
    for (let i = 1; i < 8; i++)
      lines.push(
        `${'bcdefghi'[i]}: &${'bcdefghi'[i]} [${Array(10)
          .fill(`*${'abcdefghi'[i - 1]}`)
          .join(', ')}]`,
      );
    const [doc] = parseDescriptors(lines.join('\n')).documents;
    expect(doc?.result.ok === false && doc.result.problems[0]?.message).toMatch(
      /^invalid YAML: .*alias/i,
    );
  });
});
