/**
 * A resource whose credential reference lies outside its tenant's namespace is never offered:
 * the executor would refuse to resolve its credential, so every call would fail.
 */
import { parseCredentialNamespaces } from '@tollgate/core';
import type { ResourceDescriptor } from '@tollgate/core';
import { resourceKey } from '@tollgate/kit';
import { describe, expect, it } from 'vitest';
import { Synthesizer } from '../src/index.js';
import { published } from './support/fixtures.js';
import { capturedLogger, names } from './support/harness.js';
import { TENANT, customersV1, ordersBundle, ordersV1, support } from './support/orders.js';

const RULES = parseCredentialNamespaces('env://TOLLGATE_{TENANT}__{ENVIRONMENT}__');

function withCredential(descriptor: ResourceDescriptor, credentialRef: string): ResourceDescriptor {
  return {
    ...descriptor,
    spec: { ...descriptor.spec, connection: { ...descriptor.spec.connection, credentialRef } },
  };
}

function synthesizerWith(
  resources: ResourceDescriptor[],
  credentialNamespaces?: ReturnType<typeof parseCredentialNamespaces>,
) {
  const { logger, lines } = capturedLogger();
  const synthesizer = new Synthesizer({
    logger,
    ...(credentialNamespaces ? { credentialNamespaces } : {}),
  });
  const encode = (value: unknown) => new TextEncoder().encode(JSON.stringify(value));
  for (const descriptor of resources) {
    const { tenant, environment, name } = descriptor.metadata;
    synthesizer.applyResource(
      resourceKey(tenant, environment, name),
      encode(published(descriptor, 1)),
    );
  }
  synthesizer.applyBundle(
    TENANT,
    encode(
      ordersBundle(
        1,
        resources.map((descriptor) => ({ descriptor, version: 1 })),
      ),
    ),
  );
  return { synthesizer, lines };
}

describe('synthesizer - credential namespaces', () => {
  const inside = withCredential(ordersV1, 'env://TOLLGATE_TEAM_A__PROD__ES_ORDERS');
  const foreign = withCredential(customersV1, 'env://TOLLGATE_TEAM_B__PROD__ES_CUSTOMERS');

  it('offers only resources whose credential the executor would resolve, and says why once', async () => {
    const { synthesizer, lines } = synthesizerWith([inside, foreign], RULES);
    const list = () =>
      synthesizer.listTools({
        principal: support,
        task: '',
        format: 'json_schema',
        topK: 0,
        sessionId: '',
      });
    const tools = names(await list());
    expect(tools.some((t) => t.startsWith('es_orders_'))).toBe(true);
    expect(tools.some((t) => t.startsWith('es_customers_'))).toBe(false);
    await list();
    const warnings = lines.filter(
      (l) => l['msg'] === 'credential reference outside the tenant namespace; resource not offered',
    );
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toMatchObject({ key: `${TENANT}.prod.es_customers` });
    expect(JSON.stringify(warnings[0])).not.toContain('TEAM_B__PROD__ES_CUSTOMERS');
    expect(() => synthesizer.getTool(support, 'es_customers_search', 'json_schema')).toThrow(
      expect.objectContaining({ code: 'UNKNOWN_TOOL' }),
    );
  });

  it('offers everything when no rules are given (the executor then resolves anything too)', async () => {
    const { synthesizer } = synthesizerWith([inside, foreign]);
    const tools = names(
      await synthesizer.listTools({
        principal: support,
        task: '',
        format: 'json_schema',
        topK: 0,
        sessionId: '',
      }),
    );
    expect(tools.some((t) => t.startsWith('es_customers_'))).toBe(true);
  });
});
