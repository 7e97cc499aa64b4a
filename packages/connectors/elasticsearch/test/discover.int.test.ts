import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mergeSchema } from './family/bound.js';

import { closeClients, discoverMapping, toDiscoveredSchema } from '../src/index.js';
import { adminClient, dropIndices, ES_URL, testCredentials, uniquePrefix } from './support.js';

const prefix = uniquePrefix();
const admin = adminClient();
const connection = { endpoint: ES_URL, timeoutMs: 5000 };

beforeAll(async () => {
  await admin.indices.create({
    index: `${prefix}_catalog`,
    aliases: { [`${prefix}_catalog_alias`]: {} },
    mappings: {
      dynamic: 'strict',
      properties: {
        title: { type: 'text', fields: { keyword: { type: 'keyword', ignore_above: 256 } } },
        price: { type: 'scaled_float', scaling_factor: 100 },
        released: { type: 'date', format: 'yyyy/MM/dd||epoch_millis' },
        seen_at: { type: 'date' },
        in_stock: { type: 'boolean' },
        views: { type: 'long' },
        ratio: { type: 'half_float' },
        origin_ip: { type: 'ip' },
        customer: { properties: { email: { type: 'keyword' }, age: { type: 'short' } } },
        lines: {
          type: 'nested',
          properties: { sku: { type: 'keyword' }, qty: { type: 'integer' } },
        },
        location: { type: 'geo_point' },
      },
    },
  });
  await admin.indices.create({
    index: `${prefix}_x_1`,
    mappings: {
      properties: { code: { type: 'keyword' }, at: { type: 'date' }, shared: { type: 'keyword' } },
    },
  });
  await admin.indices.create({
    index: `${prefix}_x_2`,
    mappings: {
      _source: { enabled: false },
      properties: {
        code: { type: 'long' },
        at: { type: 'date', format: 'epoch_millis' },
        shared: { type: 'keyword' },
      },
    },
  });
});

/** The mapping the kind reads, as the test's assertions name its parts. */
function discover(
  connection: Parameters<typeof discoverMapping>[0]['connection'] & { endpoint?: string },
  target: { index: string },
  credentials: Parameters<typeof discoverMapping>[1],
) {
  return discoverMapping({ connection, target }, credentials);
}

afterAll(async () => {
  await dropIndices(admin, prefix);
  await admin.close();
  await closeClients();
});

const CATALOG_FIELDS = [
  {
    path: 'customer',
    type: 'object',
    nativeType: 'object',
    indexed: false,
    docValues: false,
    inSource: true,
  },
  {
    path: 'customer.age',
    type: 'short',
    nativeType: 'short',
    indexed: true,
    docValues: true,
    inSource: true,
  },
  {
    path: 'customer.email',
    type: 'keyword',
    nativeType: 'keyword',
    indexed: true,
    docValues: true,
    inSource: true,
  },
  {
    path: 'in_stock',
    type: 'boolean',
    nativeType: 'boolean',
    indexed: true,
    docValues: true,
    inSource: true,
  },
  {
    path: 'lines',
    type: 'nested',
    nativeType: 'nested',
    indexed: false,
    docValues: false,
    inSource: true,
  },
  {
    path: 'lines.qty',
    type: 'integer',
    nativeType: 'integer',
    nestedPath: 'lines',
    indexed: true,
    docValues: true,
    inSource: true,
  },
  {
    path: 'lines.sku',
    type: 'keyword',
    nativeType: 'keyword',
    nestedPath: 'lines',
    indexed: true,
    docValues: true,
    inSource: true,
  },
  {
    path: 'location',
    type: 'geo_point',
    nativeType: 'geo_point',
    indexed: true,
    docValues: true,
    inSource: true,
  },
  {
    path: 'origin_ip',
    type: 'ip',
    nativeType: 'ip',
    indexed: true,
    docValues: true,
    inSource: true,
  },
  {
    path: 'price',
    type: 'scaled_float',
    nativeType: 'scaled_float',
    scalingFactor: 100,
    indexed: true,
    docValues: true,
    inSource: true,
  },
  {
    path: 'ratio',
    type: 'half_float',
    nativeType: 'half_float',
    indexed: true,
    docValues: true,
    inSource: true,
  },
  {
    path: 'released',
    type: 'date',
    nativeType: 'date',
    format: 'yyyy/MM/dd||epoch_millis',
    indexed: true,
    docValues: true,
    inSource: true,
  },
  {
    path: 'seen_at',
    type: 'date',
    nativeType: 'date',
    format: 'strict_date_optional_time||epoch_millis',
    indexed: true,
    docValues: true,
    inSource: true,
  },
  {
    path: 'title',
    type: 'text',
    nativeType: 'text',
    indexed: true,
    docValues: false,
    inSource: true,
  },
  {
    path: 'title.keyword',
    type: 'keyword',
    nativeType: 'keyword',
    multiFieldOf: 'title',
    indexed: true,
    docValues: true,
    inSource: false,
  },
  {
    path: 'views',
    type: 'long',
    nativeType: 'long',
    indexed: true,
    docValues: true,
    inSource: true,
  },
];

const CATALOG_WARNINGS = [
  {
    code: 'nested_unsupported',
    field: 'lines',
    message:
      'Field "lines" is nested; its subfields can be returned but not yet filtered, sorted or aggregated.',
  },
  {
    code: 'geo_point_unsupported',
    field: 'location',
    message: 'Field "location" is a geo_point; it can be returned but not yet filtered.',
  },
];

describe('discover (real Elasticsearch)', () => {
  it('discover - reads multi-fields, objects, nested, scaled_float, date formats and settings', async () => {
    const schema = await discover(connection, { index: `${prefix}_catalog` }, testCredentials);
    expect(schema).toEqual({
      target: `${prefix}_catalog`,
      indices: [{ name: `${prefix}_catalog`, dynamic: 'strict', sourceEnabled: true }],
      fields: CATALOG_FIELDS,
      conflicts: [],
      warnings: CATALOG_WARNINGS,
    });
  });

  it('discover - an alias resolves to its concrete index', async () => {
    const schema = await discover(
      connection,
      { index: `${prefix}_catalog_alias` },
      testCredentials,
    );
    expect(schema.target).toBe(`${prefix}_catalog_alias`);
    expect(schema.indices).toEqual([
      { name: `${prefix}_catalog`, dynamic: 'strict', sourceEnabled: true },
    ]);
    expect(schema.fields).toEqual(CATALOG_FIELDS);
  });

  it('discover - a pattern over two indices reports the type conflict and settings per index', async () => {
    const schema = await discover(connection, { index: `${prefix}_x_*` }, testCredentials);
    expect(schema).toEqual({
      target: `${prefix}_x_*`,
      indices: [
        { name: `${prefix}_x_1`, dynamic: 'true', sourceEnabled: true },
        { name: `${prefix}_x_2`, dynamic: 'true', sourceEnabled: false },
      ],
      fields: [
        {
          path: 'at',
          type: 'date',
          nativeType: 'date',
          format: 'strict_date_optional_time||epoch_millis',
          indexed: true,
          docValues: true,
          inSource: false,
        },
        {
          path: 'shared',
          type: 'keyword',
          nativeType: 'keyword',
          indexed: true,
          docValues: true,
          inSource: false,
        },
      ],
      conflicts: [
        {
          path: 'code',
          types: [
            { index: `${prefix}_x_1`, type: 'keyword' },
            { index: `${prefix}_x_2`, type: 'long' },
          ],
        },
      ],
      warnings: [
        {
          code: 'source_disabled',
          message: `Index "${prefix}_x_2" has _source disabled; no field can be returned from it.`,
        },
        {
          code: 'format_differs',
          field: 'at',
          message:
            'Field "at" has different date formats across indices; using "strict_date_optional_time||epoch_millis".',
        },
      ],
    });
    const merged = mergeSchema(
      {
        code: { type: 'keyword', filterable: true },
        shared: { type: 'keyword', returnable: true },
      },
      toDiscoveredSchema(schema),
    );
    expect(merged.ok).toBe(false);
    expect(
      merged.issues.filter((issue) => issue.severity === 'error').map((issue) => issue.code),
    ).toEqual(['type_conflict']);
    expect(merged.fields['shared']).toMatchObject({ returnable: false });
  });

  it('discover - a missing index or an empty pattern is NOT_FOUND', async () => {
    await expect(
      discover(connection, { index: `${prefix}_missing` }, testCredentials),
    ).rejects.toMatchObject({
      code: 'NOT_FOUND',
      message: `The index behind target "${prefix}_missing" does not exist.`,
    });
    await expect(
      discover(connection, { index: `${prefix}_nothing_*` }, testCredentials),
    ).rejects.toMatchObject({
      code: 'NOT_FOUND',
      message: `No index matches "${prefix}_nothing_*".`,
    });
  });

  it('discover - an unreachable endpoint is UPSTREAM_UNAVAILABLE and retryable', async () => {
    await expect(
      discover(
        { endpoint: 'http://127.0.0.1:1', timeoutMs: 1000 },
        { index: `${prefix}_catalog` },
        testCredentials,
      ),
    ).rejects.toMatchObject({ code: 'UPSTREAM_UNAVAILABLE', category: 'retryable' });
  });

  it('discover - an unresolvable credential is CREDENTIAL_UNAVAILABLE without the reference path', async () => {
    const error = await discover(
      { ...connection, credentialRef: 'env://TG_DISCOVER_UNSET_VARIABLE' },
      { index: `${prefix}_catalog` },
      testCredentials,
    ).catch((err: unknown) => err);
    expect(error).toMatchObject({ code: 'CREDENTIAL_UNAVAILABLE' });
    expect(String((error as Error).message)).not.toContain('TG_DISCOVER_UNSET_VARIABLE');
  });
});
