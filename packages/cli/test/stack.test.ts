import { utimes } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseEgressRules } from '@tollgate/core';
import { serviceEndpoints } from '@tollgate/kit';
import {
  CLUSTER_INSTANCES,
  SERVICE_NAMES,
  addressVariable,
  changedSettings,
  clusterEnv,
  serviceInstance,
  stackInstances,
  natsUrl,
  parseInfraStatus,
  resolveHome,
  serviceAddress,
  settingsOf,
} from '../src/index.js';
import { serviceBuilds } from '../src/stack/builds.js';
import { localEgressRules } from '../src/stack/stack.js';
import { scratch } from './support.js';

describe('stack - local stack bookkeeping', () => {
  it("stack - service addresses and variables are the services' own", () => {
    for (const name of SERVICE_NAMES) {
      expect(addressVariable(name)).toBe(serviceEndpoints[name].env);
      expect(serviceAddress(name, {})).toBe(serviceEndpoints[name].default);
    }
    expect(serviceAddress('registry', { TOLLGATE_REGISTRY_GRPC_ADDR: '10.0.0.1:7000' })).toBe(
      '10.0.0.1:7000',
    );
    expect(natsUrl({})).toBe('nats://127.0.0.1:4222');
    expect(natsUrl({ TOLLGATE_NATS_PORT: '4333' })).toBe('nats://127.0.0.1:4333');
  });

  it('stack - cluster mode: a second instance of every service, each port moved by 100, the public URLs following unless set', () => {
    const all = stackInstances({}, CLUSTER_INSTANCES);
    expect(all).toHaveLength(SERVICE_NAMES.length * 2);
    expect(new Set(all.map((i) => i.id)).size).toBe(all.length);
    expect(new Set(all.map((i) => i.address)).size).toBe(all.length);
    expect(serviceInstance('executor', 1, {})).toEqual({
      service: 'executor',
      id: 'executor',
      index: 1,
      address: '127.0.0.1:7064',
      env: {},
    });
    expect(serviceInstance('executor', 2, {})).toMatchObject({
      id: 'executor-2',
      address: '127.0.0.1:7164',
      env: { TOLLGATE_EXECUTOR_GRPC_ADDR: '127.0.0.1:7164' },
    });
    expect(
      serviceInstance('registry', 2, { TOLLGATE_REGISTRY_GRPC_ADDR: '10.0.0.1:9000' }).address,
    ).toBe('10.0.0.1:9100');
    expect(serviceInstance('console', 2, {}).env).toEqual({
      TOLLGATE_CONSOLE_GRPC_ADDR: '127.0.0.1:7169',
      TOLLGATE_CONSOLE_ADDR: '127.0.0.1:7180',
      TOLLGATE_CONSOLE_PUBLIC_URL: 'http://localhost:7180',
    });
    // Behind a load balancer both consoles answer at the one public URL that was set.
    expect(
      serviceInstance('console', 2, { TOLLGATE_CONSOLE_PUBLIC_URL: 'https://console.example' }).env,
    ).not.toHaveProperty('TOLLGATE_CONSOLE_PUBLIC_URL');
    expect(serviceInstance('mcp', 2, { TOLLGATE_MCP_HTTP_ADDR: '0.0.0.0:9068' }).env).toMatchObject(
      {
        TOLLGATE_MCP_HTTP_ADDR: '0.0.0.0:9168',
      },
    );
  });

  it("stack - cluster mode: the services learn every NATS node (deploy/local's, 10 ports apart) and ask for 3 replicas, unless told otherwise", () => {
    expect(clusterEnv({})).toEqual({
      TOLLGATE_CLUSTER: '3',
      TOLLGATE_NATS_URL: 'nats://127.0.0.1:4222,nats://127.0.0.1:4232,nats://127.0.0.1:4242',
      TOLLGATE_NATS_REPLICAS: '3',
    });
    expect(clusterEnv({ TOLLGATE_NATS_PORT: '5000', TOLLGATE_CLUSTER: '5' })).toEqual({
      TOLLGATE_CLUSTER: '5',
      TOLLGATE_NATS_URL: [5000, 5010, 5020, 5030, 5040]
        .map((p) => `nats://127.0.0.1:${p}`)
        .join(','),
      TOLLGATE_NATS_REPLICAS: '3',
    });
    expect(
      clusterEnv({ TOLLGATE_NATS_URL: 'nats://a:4222,nats://b:4222', TOLLGATE_NATS_REPLICAS: '5' }),
    ).toMatchObject({
      TOLLGATE_NATS_URL: 'nats://a:4222,nats://b:4222',
      TOLLGATE_NATS_REPLICAS: '5',
    });
  });

  it("stack - settings digests cover TOLLGATE_* variables except the CLI's own, never their values", () => {
    const env = {
      TOLLGATE_DEMO_ES_CREDENTIAL: '{"kind":"none"}',
      TOLLGATE_LOG_LEVEL: 'info',
      TOLLGATE_TENANT: 'team-b',
      TOLLGATE_LLM_API_KEY: 'sk-secret',
      HOME: '/root',
    };
    const settings = settingsOf(env);
    expect(Object.keys(settings)).toEqual(['TOLLGATE_DEMO_ES_CREDENTIAL', 'TOLLGATE_LOG_LEVEL']);
    expect(JSON.stringify(settings)).not.toContain('kind');
    expect(changedSettings(settings, settingsOf({ ...env, TOLLGATE_LOG_LEVEL: 'debug' }))).toEqual([
      'TOLLGATE_LOG_LEVEL',
    ]);
    expect(changedSettings(settings, settingsOf({ ...env, TOLLGATE_TENANT: 'x' }))).toEqual([]);
    expect(changedSettings(settings, settingsOf({ TOLLGATE_LOG_LEVEL: 'info' }))).toEqual([
      'TOLLGATE_DEMO_ES_CREDENTIAL',
    ]);
  });

  it('stack - infrastructure status lines are read; other lines are ignored', () => {
    expect(
      parseInfraStatus([
        '[infra] nats           running  pid=6656     nats://127.0.0.1:4222      healthy',
        '[infra] elasticsearch  stopped  pid=-        http://127.0.0.1:9200      -',
        '[infra] ferretdb       running  pid=6773     mongodb://127.0.0.1:27017  unhealthy',
        'something else',
      ]),
    ).toEqual([
      {
        name: 'nats',
        state: 'running',
        pid: 6656,
        address: 'nats://127.0.0.1:4222',
        healthy: true,
      },
      {
        name: 'elasticsearch',
        state: 'stopped',
        pid: undefined,
        address: 'http://127.0.0.1:9200',
        healthy: false,
      },
      {
        name: 'ferretdb',
        state: 'running',
        pid: 6773,
        address: 'mongodb://127.0.0.1:27017',
        healthy: false,
      },
    ]);
  });

  it("stack - state lives in TOLLGATE_HOME, else the checkout's .tollgate", () => {
    const home = resolveHome({}, '/tmp');
    expect(home.checkout).toBe(new URL('../../..', import.meta.url).pathname.replace(/\/$/, ''));
    expect(home.root).toBe(`${home.checkout}/.tollgate`);
    expect(home.issuerKeyFile).toBe(`${home.checkout}/.tollgate/keys/issuer.json`);
    const custom = resolveHome({ TOLLGATE_HOME: 'state' }, '/srv');
    expect([custom.root, custom.run, custom.trustedIssuersFile]).toEqual([
      '/srv/state',
      '/srv/state/run',
      '/srv/state/trusted-issuers.json',
    ]);
  });
});

describe('stack - egress rules of a local stack', () => {
  it("stack - the data servers deploy/local runs, by host and port, not the stack's own", () => {
    const rules = localEgressRules(
      parseInfraStatus([
        '[infra] nats           running  pid=1  nats://127.0.0.1:4222               healthy',
        '[infra] elasticsearch  running  pid=2  http://127.0.0.1:9200               healthy',
        '[infra] postgres       running  pid=3  postgres://127.0.0.1:5432/tollgate  healthy',
        '[infra] ferretdb       running  pid=4  mongodb://127.0.0.1:27017           healthy',
        '[infra] directus       stopped  pid=-  http://127.0.0.1:8055               -',
      ]),
    );
    expect(rules).toBe('*/*=public,127.0.0.1:9200,127.0.0.1:5432,127.0.0.1:8055');
    expect(parseEgressRules(rules).entries[0]?.destinations).toHaveLength(4);
  });
});

describe('stack - builds', () => {
  it('stack - a service counts as rebuilt when it or a workspace package it depends on is', async () => {
    const manifest = (name: string, deps: string[] = []) =>
      JSON.stringify({
        name,
        dependencies: Object.fromEntries(deps.map((d) => [d, 'workspace:*'])),
      });
    const dir = await scratch({
      'services/registry/package.json': manifest('@tollgate/service-registry', [
        '@tollgate/core',
        'left-pad',
      ]),
      'services/registry/dist/main.js': '',
      'packages/core/package.json': manifest('@tollgate/core', ['@tollgate/contracts']),
      'packages/core/dist/index.js': '',
      'packages/contracts/package.json': manifest('@tollgate/contracts'),
      'packages/contracts/dist/gen/deep.js': '',
      'packages/cli/package.json': manifest('@tollgate/cli', ['@tollgate/core']),
      'packages/cli/dist/main.js': '',
    });
    try {
      const at = (path: string, seconds: number) => utimes(join(dir.root, path), seconds, seconds);
      await at('services/registry/dist/main.js', 1_000);
      await at('packages/core/dist/index.js', 2_000);
      await at('packages/contracts/dist/gen/deep.js', 3_000);
      await at('packages/cli/dist/main.js', 9_000);
      const builds = await serviceBuilds(dir.root, ['registry', 'audit']);
      expect(builds).toEqual({ registry: 3_000_000, audit: 0 });
    } finally {
      await dir.cleanup();
    }
  });
});
