/**
 * The demo's orders scenario in a tenant and an index of its own: the example descriptors in
 * examples/orders rewritten to that tenant and index — the credential too, to a file in the
 * tenant's own credential namespace — and the shared orders fixture seeded into the index (or
 * only its mapping, for tests that need no documents).
 */
import { mkdir, mkdtemp, readFile, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from '@elastic/elasticsearch';
import { ORDERS_MAPPING, seedOrders } from '../../fixtures/orders.js';
import { infra, uniqueName } from '../../support/infra.js';
import { repoRoot } from '../../support/process.js';
import { E2E_CREDENTIALS } from './cli.js';

export interface OrdersScenario {
  tenant: string;
  index: string;
  /** Folder holding the rewritten descriptors. */
  dir: string;
  es: Client;
  cleanup(): Promise<void>;
}

export async function ordersScenario(options: { seed: boolean }): Promise<OrdersScenario> {
  const tenant = uniqueName('e2e').replaceAll('_', '-');
  const index = uniqueName('orders_e2e');
  const es = new Client({ node: infra.esUrl });
  if (options.seed) {
    await seedOrders(es, index);
  } else {
    await es.indices.create({ index, mappings: ORDERS_MAPPING as never });
  }
  const dir = await mkdtemp(join(tmpdir(), 'tollgate-e2e-'));
  const credentials = join(E2E_CREDENTIALS, tenant);
  await mkdir(join(credentials, 'prod'), { recursive: true });
  await writeFile(join(credentials, 'prod', 'es-orders.json'), '{"kind":"none"}\n');
  const examples = join(repoRoot, 'examples', 'orders');
  for (const file of await readdir(examples)) {
    const text = await readFile(join(examples, file), 'utf8');
    const rewritten = text
      .replaceAll('tenant: team-a', `tenant: ${tenant}`)
      .replace('target: { index: orders }', `target: { index: ${index} }`)
      .replace(
        'credentialRef: env://TOLLGATE_TEAM_A__PROD__ES_ORDERS',
        `credentialRef: file://${join(credentials, 'prod', 'es-orders.json')}`,
      );
    if (!rewritten.includes(tenant)) throw new Error(`${file}: no tenant to rewrite`);
    if (rewritten.includes('credentialRef: env://'))
      throw new Error(`${file}: the credential reference was not moved to the scenario's tenant`);
    await writeFile(join(dir, file), rewritten);
  }
  return {
    tenant,
    index,
    dir,
    es,
    async cleanup() {
      await es.indices.delete({ index }, { ignore: [404] });
      await es.close();
      await rm(dir, { recursive: true, force: true });
      await rm(credentials, { recursive: true, force: true });
    },
  };
}
