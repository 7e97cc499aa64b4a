import { describe, expect, it } from 'vitest';
import { elasticsearchConnector, readMappings } from '@tollgate/connector-elasticsearch';
import { createKindRegistry } from '@tollgate/core';
import type { DiscoveredSchema } from '@tollgate/core';
import { echoProposal } from '../src/echo.js';
import {
  checkPartial,
  completeEnvelope,
  composeProposal,
  discoveryTarget,
} from '../src/proposal.js';

const scope = { tenant: 'team-a', environment: 'prod' };

const kinds = createKindRegistry([elasticsearchConnector]);

const discovered: DiscoveredSchema = readMappings('orders', {
  orders: {
    mappings: {
      properties: { amount: { type: 'double' }, id: { type: 'keyword' }, note: { type: 'text' } },
    },
  },
});

/** What a model might extract from "expose the orders index at es:9200 as es_orders". */
const partial = {
  metadata: { name: 'es_orders' },
  spec: {
    connection: { endpoint: 'http://es.internal:9200' },
    target: { index: 'orders' },
    schema: { fields: { id: { type: 'keyword', filterable: true, returnable: true } } },
  },
};

describe('proposal', () => {
  it("proposal - the envelope is completed from the caller's scope; present values are kept", () => {
    const candidate = completeEnvelope(partial, scope, kinds);
    expect(candidate).toMatchObject({
      apiVersion: 'tollgate.dev/v1',
      kind: 'Resource',
      metadata: { name: 'es_orders', tenant: 'team-a', environment: 'prod' },
      spec: { type: 'elasticsearch' },
    });
    expect(completeEnvelope({ metadata: { tenant: 'other' } }, scope, kinds)).toMatchObject({
      metadata: { tenant: 'other' },
    });
    expect(discoveryTarget(candidate, kinds)).toEqual({
      kind: elasticsearchConnector,
      spec: candidate.spec,
    });
    expect(discoveryTarget(completeEnvelope({}, scope, kinds), kinds)).toBeUndefined();
  });

  it('proposal - missing parts are returned; malformed or required-but-missing parts are refused', () => {
    const missing = checkPartial(completeEnvelope(partial, scope, kinds), ['metadata.name'], kinds);
    expect(missing.map((p) => p.path)).toEqual(['spec.access']);
    expect(() =>
      checkPartial(completeEnvelope({ spec: {} }, scope, kinds), ['metadata.name'], kinds),
    ).toThrow(/^descriptor invalid \(1 problem\): metadata\.name: required key missing/);
    expect(() =>
      checkPartial(
        completeEnvelope({ spec: {} }, scope, kinds),
        ['spec.connection', 'spec.target'],
        kinds,
      ),
    ).toThrow(/^descriptor invalid \(2 problems\): spec\.connection: required key missing/);
    expect(() =>
      checkPartial(
        completeEnvelope(
          { metadata: { name: 'es_orders' }, spec: { access: { maxLimit: 'ten' } } },
          scope,
          kinds,
        ),
        [],
        kinds,
      ),
    ).toThrow(/spec\.access\.maxLimit: expected integer/);
  });

  it('proposal - discovery wins on types, undeclared fields come in with every capability off and a suggestion', () => {
    const proposal = composeProposal(
      completeEnvelope(partial, scope, kinds),
      { schema: discovered },
      kinds,
    );
    const fields = (
      proposal.descriptor.spec as { schema: { fields: Record<string, Record<string, unknown>> } }
    ).schema.fields;
    expect(Object.keys(fields)).toEqual(['amount', 'id', 'note']);
    expect(fields.id).toMatchObject({ type: 'keyword', filterable: true, returnable: true });
    expect(fields.amount).toMatchObject({
      type: 'double',
      filterable: false,
      range: false,
      returnable: false,
    });
    expect(proposal.fields.find((f) => f.name === 'amount')).toEqual({
      name: 'amount',
      type: 'double',
      nativeType: 'double',
      declared: false,
      searchable: false,
      aggregatable: true,
      proposedCapabilities: ['filterable', 'returnable', 'sortable', 'range', 'aggregatable'],
    });
    expect(proposal.fields.find((f) => f.name === 'id')?.proposedCapabilities).toEqual([]);
    expect(proposal.missing.map((p) => p.path)).toEqual(['spec.access']);
    expect(proposal.confirmable).toBe(false);
    expect(proposal.warnings.map((w) => w.code)).toEqual(['FIELDS_NOT_ENABLED', 'INPUT_NEEDED']);
  });

  it('proposal - complete input is confirmable, with defaults applied; echo reads it back in plain language', () => {
    const complete = {
      ...partial,
      spec: { ...partial.spec, access: { allowedRoles: ['support'] } },
    };
    const proposal = composeProposal(
      completeEnvelope(complete, scope, kinds),
      { schema: discovered },
      kinds,
    );
    expect(proposal.confirmable).toBe(true);
    expect(proposal.descriptor).toMatchObject({
      spec: { access: { readonly: true, maxLimit: 100 }, connection: { timeoutMs: 5000 } },
    });
    expect(echoProposal(proposal, kinds)).toBe(
      [
        'I understood: Elasticsearch index "orders" at http://es.internal:9200 (no credential), as resource "es_orders" of team-a/prod.',
        'Enabled fields: id (keyword: filter, return).',
        'Found but not enabled: amount (double; could filter, range, sort, aggregate, return), note (text; could search, return).',
        'Access: roles support; read-only; at most 100 rows per call.',
        'Confirm?',
      ].join('\n'),
    );
  });

  it('proposal - a type conflict blocks; a failed or skipped discovery keeps the declaration and says why', () => {
    const conflicting: DiscoveredSchema = {
      ...discovered,
      fields: discovered.fields.filter((f) => f.path !== 'id'),
      conflicts: [
        {
          path: 'id',
          types: [
            { source: 'orders-1', type: 'keyword' },
            { source: 'orders-2', type: 'long' },
          ],
        },
      ],
    };
    const complete = {
      ...partial,
      spec: { ...partial.spec, access: { allowedRoles: ['support'] } },
    };
    const blocked = composeProposal(
      completeEnvelope(complete, scope, kinds),
      { schema: conflicting },
      kinds,
    );
    expect(blocked.blocking.map((w) => [w.code, w.path])).toEqual([
      ['TYPE_CONFLICT', 'spec.schema.fields.id'],
    ]);
    expect(blocked.confirmable).toBe(false);
    expect(echoProposal(blocked, kinds)).toContain(
      'Blocking: Declared field "id" has different types',
    );

    const failed = composeProposal(
      completeEnvelope(complete, scope, kinds),
      {
        failed: 'Discovery failed (UPSTREAM_UNAVAILABLE): down.',
      },
      kinds,
    );
    expect(failed.warnings).toEqual([
      {
        code: 'DISCOVERY_FAILED',
        path: 'spec.target',
        message: 'Discovery failed (UPSTREAM_UNAVAILABLE): down.',
      },
    ]);
    expect(failed.confirmable).toBe(true);
    expect(failed.fields).toEqual([]);
  });
});
