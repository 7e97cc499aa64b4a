import { randomBytes } from 'node:crypto';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { createServer } from 'node:http';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { InMemorySpanExporter, SimpleSpanProcessor } from '@opentelemetry/sdk-trace';
import { startTelemetry } from '@tollgate/kit';
import type { Telemetry } from '@tollgate/kit';
import { ordersResource, seedOrders } from '../fixtures/orders.js';
import {
  ES_URL,
  ORDERS_INDEX,
  startHarness,
} from '../../services/executor/test/support/harness.js';
import type { Harness, Outcome } from '../../services/executor/test/support/harness.js';
import { startEsProxy } from './support/es-proxy.js';
import type { EsProxy } from './support/es-proxy.js';

/**
 * Canary secrets behind every kind of credential reference: they must reach Elasticsearch (so
 * the test proves they were used) and nothing else — no log line, reply, event or span.
 */
const canary = (kind: string) => `CANARY-${kind}-${randomBytes(12).toString('hex')}`;
const ENV_SECRET = canary('env');
const FILE_SECRET = canary('file');
const VAULT_SECRET = canary('vault');
const VAULT_TOKEN = canary('vault-token');
const CANARIES = [ENV_SECRET, FILE_SECRET, VAULT_SECRET, VAULT_TOKEN];

let h: Harness;
let proxy: EsProxy;
let vault: Server;
let telemetry: Telemetry;
let dir: string;
const exporter = new InMemorySpanExporter();
const processor = new SimpleSpanProcessor({ exporter });
const replies: Outcome[] = [];

/** A Vault KV v2 endpoint holding one secret, readable with the canary token only. */
async function startVault(): Promise<string> {
  vault = createServer((req, res) => {
    const ok =
      req.headers['x-vault-token'] === VAULT_TOKEN && req.url === '/v1/secret/data/es-orders';
    res.writeHead(ok ? 200 : 403, { 'content-type': 'application/json' });
    res.end(
      JSON.stringify(
        ok
          ? { data: { data: { api_key: VAULT_SECRET }, metadata: { version: 1 } } }
          : { errors: ['permission denied'] },
      ),
    );
  });
  await new Promise<void>((resolve) => vault.listen(0, '127.0.0.1', resolve));
  return `http://127.0.0.1:${(vault.address() as AddressInfo).port}`;
}

beforeAll(async () => {
  telemetry = startTelemetry({ service: 'executor-canary', spanProcessors: [processor] });
  dir = await mkdtemp(join(tmpdir(), 'tollgate-canary-'));
  await writeFile(
    join(dir, 'es.json'),
    JSON.stringify({ username: 'elastic', password: FILE_SECRET }),
  );
  const vaultUrl = await startVault();
  h = await startHarness({
    noExecutor: true,
    credentials: {
      env: { ES_ORDERS_KEY: ENV_SECRET, VAULT_ADDR: vaultUrl, VAULT_TOKEN },
    },
  });
  await seedOrders(h.es, ORDERS_INDEX);
  proxy = await startEsProxy(ES_URL);
  const resource = (name: string, credentialRef: string, endpoint = proxy.url) =>
    ordersResource({ name, endpoint, index: ORDERS_INDEX, credentialRef });
  const resources = [
    { descriptor: resource('orders_env', 'env://ES_ORDERS_KEY'), version: 1 },
    { descriptor: resource('orders_file', `file://${join(dir, 'es.json')}`), version: 1 },
    { descriptor: resource('orders_vault', 'vault://secret/es-orders#api_key'), version: 1 },
    { descriptor: resource('orders_vault_bad', 'vault://secret/elsewhere#api_key'), version: 1 },
    {
      descriptor: resource('orders_down', 'env://ES_ORDERS_KEY', 'http://127.0.0.1:1'),
      version: 1,
    },
  ];
  for (const r of resources) await h.publishResource(r.descriptor, r.version);
  await h.publishBundle(resources, 1);
  h.running = await h.startExecutor();
});
afterAll(async () => {
  await h?.stop();
  await proxy?.close();
  await new Promise<void>((resolve) => (vault ? vault.close(() => resolve()) : resolve()));
  await telemetry?.shutdown();
  await rm(dir, { recursive: true, force: true });
});

async function call(resource: string, args: Record<string, unknown>): Promise<Outcome> {
  const answer = await h.call(`${resource}_search`, args as never);
  replies.push(answer);
  return answer;
}

const byId = { filters: [{ field: 'id', op: 'eq', value: '12345' }] };

describe('security - credentials never leave the credential stage', () => {
  it('security - env://, file:// and vault:// credentials are resolved and used upstream', async () => {
    for (const resource of ['orders_env', 'orders_file', 'orders_vault']) {
      expect((await call(resource, byId)).status).toBe('ok');
    }
    const sent = proxy.requests.map((r) => r.authorization);
    expect(sent).toContain(`ApiKey ${ENV_SECRET}`);
    expect(sent).toContain(`ApiKey ${VAULT_SECRET}`);
    expect(sent).toContain(`Basic ${Buffer.from(`elastic:${FILE_SECRET}`).toString('base64')}`);
  });

  it('security - failing calls name the failure, never the secret', async () => {
    const bad = await call('orders_vault_bad', byId);
    expect(bad.error).toMatchObject({ code: 'CREDENTIAL_UNAVAILABLE', category: 'internal' });
    expect(bad.error?.message).toBe(
      'Credential vault:// reference is unavailable: Vault answered HTTP 403.',
    );
    const down = await call('orders_down', byId);
    expect(down.error).toMatchObject({ code: 'UPSTREAM_UNAVAILABLE', category: 'retryable' });
    const invalid = await call('orders_env', {
      filters: [{ field: 'internal_note', op: 'match', value: ENV_SECRET.slice(0, 4) }],
    });
    expect(invalid.error?.code).toBe('ARGUMENTS_INVALID');
  });

  it('security - no canary appears in logs, replies, events or traces', async () => {
    await processor.forceFlush();
    const haystacks: Record<string, string> = {
      logs: h.logs.join('\n'),
      replies: JSON.stringify(replies.map(({ raw: _raw, ...rest }) => rest)),
      replyBytes: replies
        .map((r) => Buffer.from(JSON.stringify(r.raw ?? null)).toString())
        .join('\n'),
      events: h.eventBytes.map((b) => Buffer.from(b).toString('latin1')).join('\n'),
      traces: JSON.stringify(
        exporter.getFinishedSpans().map((s) => ({
          name: s.name,
          attributes: s.attributes,
          events: s.events,
          status: s.status,
        })),
      ),
    };
    expect(h.logs.length).toBeGreaterThan(0);
    expect(h.eventBytes.length).toBeGreaterThanOrEqual(replies.length);
    expect(exporter.getFinishedSpans().some((s) => s.name === 'executor.credential')).toBe(true);
    for (const [where, text] of Object.entries(haystacks)) {
      for (const secret of CANARIES)
        expect(text.includes(secret), `${secret.split('-')[1]} canary in ${where}`).toBe(false);
      expect(text.includes('CANARY-'), `a canary in ${where}`).toBe(false);
    }
  });
});
