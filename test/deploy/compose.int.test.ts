/**
 * docker-compose.yml as `docker compose` would read it (no Docker engine runs here, so the file
 * is checked): the default shape, and the `cluster` profile's — three routed NATS nodes with
 * JetStream, 3 replicas of every stream and bucket, two instances of every service — from
 * official images only. Interpolation (`${VAR:-default}`, `$$`) and profiles are applied as
 * Compose applies them; the shell snippets the file runs are run here with `sh`.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { serviceEndpoints } from '@tollgate/kit';
import { repoRoot } from '../support/process.js';

/** The slice of a Compose service these checks read. */
interface ComposeService {
  image?: string;
  build?: { context: string; dockerfile: string; args?: { SERVICE?: string } };
  command?: string[];
  profiles?: string[];
  ports?: string[];
  volumes?: string[];
  environment?: Record<string, string | number>;
  depends_on?: Record<string, { condition: string }>;
  healthcheck?: { test: string[] };
}

const SERVICES = Object.keys(serviceEndpoints);
const text = readFileSync(join(repoRoot, 'docker-compose.yml'), 'utf8');
const keysDir = mkdtempSync(join(tmpdir(), 'compose-keys-'));
afterAll(() => rmSync(keysDir, { recursive: true, force: true }));

/** The services `docker compose [--profile …] up` starts, with `env` in the shell. */
function composeServices(
  env: Record<string, string>,
  profiles: string[] = [],
): Map<string, ComposeService> {
  const interpolated = text.replace(
    /\$\$|\$\{([A-Z_][A-Z0-9_]*)(?::-([^}]*))?\}/g,
    (all, name: string | undefined, fallback: string | undefined) =>
      name === undefined ? '$' : env[name] || (fallback ?? ''),
  );
  const file = parse(interpolated, { merge: true }) as {
    services: Record<string, ComposeService>;
  };
  return new Map(
    Object.entries(file.services).filter(
      ([, s]) => s.profiles === undefined || s.profiles.some((p) => profiles.includes(p)),
    ),
  );
}

/** Service names of the Tollgate services (built from this repository), by the service they run. */
function instancesOf(services: Map<string, ComposeService>): Map<string, string[]> {
  const out = new Map<string, string[]>();
  for (const [name, s] of services) {
    const service = s.build?.args?.SERVICE;
    if (service !== undefined) out.set(service, [...(out.get(service) ?? []), name]);
  }
  return out;
}

/** Runs a healthcheck's shell line with `wget` replaced by one that prints the URL it was given. */
function healthUrl(service: ComposeService, env: Record<string, string>): string {
  const [kind, line] = service.healthcheck!.test;
  expect(kind).toBe('CMD-SHELL');
  return execFileSync('sh', ['-c', `wget() { printf '%s' "$4"; }; ${line}`], {
    encoding: 'utf8',
    env: { PATH: process.env.PATH, ...env },
  });
}

const cluster = composeServices({ TOLLGATE_NATS_REPLICAS: '3' }, ['cluster']);
const single = composeServices({});

describe('compose - docker-compose.yml', () => {
  it('compose - the default shape: one NATS server, one instance of every service, 1 replica', () => {
    expect([...single.keys()].filter((n) => n.startsWith('nats'))).toEqual(['nats-keys', 'nats']);
    expect(single.get('nats')!.command).toEqual(['-c', '/keys/nats-r1.conf']);
    expect(healthUrl(single.get('nats')!, { TOLLGATE_NATS_REPLICAS: '1' })).toBe(
      'http://127.0.0.1:8222/healthz?js-enabled-only=true',
    );
    const instances = instancesOf(single);
    expect([...instances.keys()].sort()).toEqual([...SERVICES].sort());
    for (const [service, names] of instances) {
      expect(names, service).toEqual([service]);
      const env = single.get(service)!.environment!;
      expect(String(env.TOLLGATE_NATS_REPLICAS), service).toBe('1');
      expect(env.TOLLGATE_NATS_URL, service).toBe('nats://nats:4222');
    }
  });

  it('compose - the cluster profile: three NATS nodes, each with its own storage and config, healthy once the cluster formed', () => {
    const nodes = ['nats', 'nats-2', 'nats-3'];
    expect([...cluster.keys()].filter((n) => /^nats(-\d)?$/.test(n))).toEqual(nodes);
    const volumes = nodes.map((n) => cluster.get(n)!.volumes!.find((v) => v.endsWith(':/data')));
    expect(new Set(volumes).size).toBe(3);
    expect(cluster.get('nats')!.command).toEqual(['-c', '/keys/nats-r3.conf']);
    for (const node of nodes) {
      const s = cluster.get(node)!;
      expect(s.image, node).toMatch(/^nats:\d+\.\d+\.\d+-alpine$/);
      expect(s.depends_on?.['nats-keys']?.condition, node).toBe('service_completed_successfully');
      // A member is healthy when it follows the JetStream meta leader, not merely when it runs.
      expect(healthUrl(s, { TOLLGATE_NATS_REPLICAS: '3' }), node).toBe(
        'http://127.0.0.1:8222/healthz',
      );
    }
    // Only node 1 is published on the host.
    expect(cluster.get('nats-2')!.ports).toEqual([]);
    expect(cluster.get('nats-3')!.ports).toEqual([]);
  });

  it('compose - nodes 2 and 3 refuse to start unless the services make 3 replicas', () => {
    for (const node of ['nats-2', 'nats-3']) {
      const [shell, flag, script] = cluster.get(node)!.command!;
      expect([shell, flag]).toEqual(['sh', '-c']);
      const refused = spawnSync('sh', ['-c', script!], {
        encoding: 'utf8',
        env: { PATH: process.env.PATH, TOLLGATE_NATS_REPLICAS: '1' },
      });
      expect(refused.status, node).toBe(1);
      expect(refused.stdout).toContain('the cluster profile needs TOLLGATE_NATS_REPLICAS=3');
      expect(script).toContain(`-c /keys/$NATS_NODE_CONF`);
      expect(cluster.get(node)!.environment!.NATS_NODE_CONF).toBe(`${node}.conf`);
    }
  });

  it('compose - the nodes are routed to each other with JetStream on, behind a route password only they read', () => {
    const [, , setup] = cluster.get('nats-keys')!.command!;
    expect(setup).toContain('sh /deploy/nats/compose-cluster.sh /keys');
    // The cluster configs are written after the keys are made readable to the services.
    expect(setup!.indexOf('compose-cluster.sh')).toBeGreaterThan(setup!.indexOf('chmod -R a+rX'));
    execFileSync('sh', [join(repoRoot, 'deploy/nats/compose-cluster.sh'), keysDir]);
    const secret = readFileSync(join(keysDir, 'cluster-route.secret'), 'utf8').trim();
    expect(secret.length).toBeGreaterThanOrEqual(32);
    for (const [file, server] of [
      ['nats-r3.conf', 'tollgate-1'],
      ['nats-2.conf', 'tollgate-2'],
      ['nats-3.conf', 'tollgate-3'],
    ] as const) {
      const path = join(keysDir, file);
      expect(statSync(path).mode & 0o077, file).toBe(0);
      const conf = readFileSync(path, 'utf8');
      expect(conf).toContain(`server_name: ${server}`);
      expect(conf).toMatch(/jetstream \{\s*store_dir: \/data\/cluster\s*\}/);
      expect(conf).toContain('name: tollgate');
      expect(conf).toContain('listen: 0.0.0.0:6222');
      for (const peer of ['nats', 'nats-2', 'nats-3'])
        expect(conf).toContain(`"nats-route://route:${secret}@${peer}:6222"`);
      expect(conf).toContain('include ./tollgate.conf');
    }
    // Kept across runs: a restart of nats-keys does not cut the running nodes off each other.
    execFileSync('sh', [join(repoRoot, 'deploy/nats/compose-cluster.sh'), keysDir]);
    expect(readFileSync(join(keysDir, 'cluster-route.secret'), 'utf8').trim()).toBe(secret);
  });

  it('compose - the cluster profile: two instances of every service (two executors), all at 3 replicas, the second on every node', () => {
    const instances = instancesOf(cluster);
    expect([...instances.keys()].sort()).toEqual([...SERVICES].sort());
    for (const [service, names] of instances) {
      expect(names, service).toEqual([service, `${service}-2`]);
      const [first, second] = names.map((n) => cluster.get(n)!);
      for (const s of [first!, second!])
        expect(String(s.environment!.TOLLGATE_NATS_REPLICAS), service).toBe('3');
      // The second instance is the first one's copy apart from where it connects and its ports.
      const { TOLLGATE_NATS_URL: url, ...rest } = second!.environment!;
      const { TOLLGATE_NATS_URL: _firstUrl, ...firstRest } = first!.environment!;
      expect(rest, service).toEqual(firstRest);
      expect(String(url).split(','), service).toEqual([
        'nats://nats-2:4222',
        'nats://nats-3:4222',
        'nats://nats:4222',
      ]);
      expect(second!.build, service).toEqual(first!.build);
      expect(second!.ports, service).toEqual([]);
      expect(second!.healthcheck, service).toEqual(first!.healthcheck);
      for (const node of ['nats', 'nats-2', 'nats-3', 'mongo', 'elasticsearch'])
        expect(second!.depends_on?.[node]?.condition, `${service} → ${node}`).toBe(
          'service_healthy',
        );
    }
    expect(instances.get('executor')).toHaveLength(2);
  });

  it('compose - only official images: the upstream projects’ own, Tollgate built from this repository', () => {
    const official = [
      /^nats:[\w.-]+$/,
      /^natsio\/nats-box:[\w.-]+$/,
      /^mongo:[\w.-]+$/,
      /^docker\.elastic\.co\/elasticsearch\/elasticsearch:[\w.-]+$/,
      /^postgres:[\w.-]+$/,
      /^mariadb:[\w.-]+$/,
      /^directus\/directus:[\w.-]+$/,
      /^jaegertracing\/jaeger:[\w.-]+$/,
      /^otel\/opentelemetry-collector-contrib:[\w.-]+$/,
    ];
    for (const [name, s] of cluster) {
      if (s.build !== undefined) {
        expect(s.image, name).toBeUndefined();
        expect(s.build.dockerfile, name).toBe('deploy/docker/Dockerfile');
        continue;
      }
      expect(
        official.some((re) => re.test(s.image ?? '')),
        `${name}: ${s.image}`,
      ).toBe(true);
    }
  });
});
