import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { parseAllDocuments, parse } from 'yaml';
import { serviceEndpoints } from '@tollgate/kit';
import { repoRoot } from '../support/process.js';

/** The slice of a Kubernetes object these checks read. */
interface Manifest {
  apiVersion: string;
  kind: string;
  metadata: { name: string; labels?: Record<string, string> };
  spec: Record<string, unknown> & {
    replicas?: number;
    selector?: { matchLabels?: Record<string, string> };
    template?: { spec: PodSpec };
  };
  data?: Record<string, string>;
}
interface Probe {
  grpc?: { port: number };
}
interface Container {
  name: string;
  env?: { name: string; value?: string; valueFrom?: { secretKeyRef?: { name: string } } }[];
  securityContext?: Record<string, unknown> & { capabilities?: { drop?: string[] } };
  resources?: { requests?: Record<string, string>; limits?: Record<string, string> };
  readinessProbe?: Probe;
  livenessProbe?: Probe;
  volumeMounts?: { name: string; mountPath: string; readOnly?: boolean }[];
}
interface PodSpec {
  securityContext?: Record<string, unknown>;
  automountServiceAccountToken?: boolean;
  containers: Container[];
  volumes?: { name: string; secret?: { items?: { key: string }[] } }[];
}

const chart = join(repoRoot, 'deploy/helm/tollgate');
const SERVICES = Object.keys(serviceEndpoints);
let helm: string;

function render(...set: string[]): Manifest[] {
  const out = execFileSync(helm, ['template', 'tg', chart, ...set.flatMap((s) => ['--set', s])], {
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  return parseAllDocuments(out)
    .map((d) => d.toJS() as Manifest | null)
    .filter((m): m is Manifest => m !== null);
}

const named = (manifests: Manifest[], kind: string) =>
  new Map(manifests.filter((m) => m.kind === kind).map((m) => [m.metadata.name, m]));

beforeAll(() => {
  helm = execFileSync('bash', [join(repoRoot, 'deploy/local/tools.sh'), 'helm'], {
    encoding: 'utf8',
  }).trim();
}, 900_000);

describe('helm - the tollgate chart', () => {
  it('helm - lint passes with the default values', () => {
    const out = execFileSync(helm, ['lint', chart], { encoding: 'utf8' });
    expect(out).toContain('0 chart(s) failed');
  });

  it('helm - every service is a Deployment whose probes ask its gRPC health port', () => {
    const deployments = named(render(), 'Deployment');
    expect([...deployments.keys()].sort()).toEqual(SERVICES.map((s) => `tg-${s}`).sort());
    for (const service of SERVICES) {
      const spec = deployments.get(`tg-${service}`)!.spec.template!.spec;
      const [container] = spec.containers;
      const port = Number(
        serviceEndpoints[service as keyof typeof serviceEndpoints].default.split(':')[1],
      );
      expect(container?.readinessProbe?.grpc?.port, service).toBe(port);
      expect(container?.livenessProbe?.grpc?.port, service).toBe(port);
      const listen = container?.env?.find(
        (e) => e.name === serviceEndpoints[service as keyof typeof serviceEndpoints].env,
      );
      expect(listen?.value, service).toBe(`0.0.0.0:${port}`);
    }
  });

  it('helm - every container has requests and limits and runs non-root on a read-only root', () => {
    for (const deployment of named(render(), 'Deployment').values()) {
      const pod = deployment.spec.template!.spec;
      const name = deployment.metadata.name;
      expect(pod.securityContext, name).toMatchObject({ runAsNonRoot: true });
      expect(Number(pod.securityContext?.runAsUser), name).toBeGreaterThan(0);
      expect(pod.automountServiceAccountToken, name).toBe(false);
      for (const c of pod.containers) {
        expect(c.resources?.requests?.cpu && c.resources.requests.memory, name).toBeTruthy();
        expect(c.resources?.limits?.cpu && c.resources.limits.memory, name).toBeTruthy();
        expect(c.securityContext, name).toMatchObject({
          readOnlyRootFilesystem: true,
          allowPrivilegeEscalation: false,
        });
        expect(c.securityContext?.capabilities?.drop, name).toContain('ALL');
        // Writable places are explicit volumes; secrets are mounted read-only.
        for (const mount of c.volumeMounts ?? [])
          if (mount.mountPath.startsWith('/etc/tollgate'))
            expect(mount.readOnly, mount.name).toBe(true);
      }
    }
  });

  it('helm - each instance gets only its own NATS key, and secrets come from Secrets, never values', () => {
    const manifests = render();
    for (const deployment of named(manifests, 'Deployment').values()) {
      const service = deployment.metadata.labels!['app.kubernetes.io/component']!;
      const keys = deployment.spec.template!.spec.volumes!.find(
        (v) => v.name === 'nats-credentials',
      );
      expect(keys?.secret?.items?.map((i) => i.key)).toEqual([`${service}.nk`]);
      for (const env of deployment.spec.template!.spec.containers[0]!.env ?? []) {
        if (/MONGO_URL|CURSOR_KEY|PASSWORD|SECRET/.test(env.name))
          expect(env.valueFrom?.secretKeyRef?.name, env.name).toBeTruthy();
      }
    }
    const executor = named(manifests, 'Deployment').get('tg-executor')!;
    const cursor = executor.spec.template!.spec.containers[0]!.env!.find(
      (e) => e.name === 'TOLLGATE_CURSOR_KEY',
    );
    expect(cursor?.valueFrom?.secretKeyRef?.name).toBe('tollgate-cursor-key');
    // No Secret objects are rendered: credentials are the operator's, created beside the chart.
    expect(manifests.filter((m) => m.kind === 'Secret')).toEqual([]);
  });

  it('helm - a PodDisruptionBudget per service selects exactly its pods', () => {
    const manifests = render();
    const pdbs = named(manifests, 'PodDisruptionBudget');
    for (const [name, deployment] of named(manifests, 'Deployment')) {
      const pdb = pdbs.get(name);
      expect(pdb, name).toBeDefined();
      expect(pdb!.spec.minAvailable).toBe(1);
      expect(pdb!.spec.selector).toEqual(deployment.spec.selector);
      expect(deployment.spec.replicas ?? 3).toBeGreaterThan(pdb!.spec.minAvailable as number);
    }
  });

  it('helm - executors scale with an HPA (and have no fixed replica count); other services do not', () => {
    const manifests = render();
    const hpas = [...named(manifests, 'HorizontalPodAutoscaler').values()];
    expect(hpas.map((h) => h.metadata.name)).toEqual(['tg-executor']);
    expect(hpas[0]!.spec).toMatchObject({
      scaleTargetRef: { kind: 'Deployment', name: 'tg-executor' },
      minReplicas: 3,
    });
    expect(named(manifests, 'Deployment').get('tg-executor')!.spec.replicas).toBeUndefined();
    const off = render('services.executor.autoscaling.enabled=false');
    expect(off.filter((m) => m.kind === 'HorizontalPodAutoscaler')).toEqual([]);
    expect(named(off, 'Deployment').get('tg-executor')!.spec.replicas).toBe(3);
  });

  it('helm - the config points at the engines and asks for 3 replicas of every stream and bucket', () => {
    const manifests = render(
      'nats.url=nats://nats.nats.svc:4222',
      'credentialNamespaces=vault://x/{tenant}/',
    );
    const [config] = manifests.filter((m) => m.kind === 'ConfigMap');
    expect(config!.data).toMatchObject({
      TOLLGATE_NATS_URL: 'nats://nats.nats.svc:4222',
      TOLLGATE_NATS_REPLICAS: '3',
      TOLLGATE_CREDENTIAL_NAMESPACES: 'vault://x/{tenant}/',
      TOLLGATE_EGRESS_RULES: '*/*=public',
      TOLLGATE_TRUSTED_ISSUERS_FILE: '/etc/tollgate/issuers/issuers.json',
      TOLLGATE_POLICY_GRPC_ADDR: 'tg-policy:7063',
    });
    const nats = parse(readFileSync(join(repoRoot, 'deploy/helm/nats-values.yaml'), 'utf8'));
    expect(nats.config.cluster).toMatchObject({ enabled: true, replicas: 3 });
    expect(nats.config.jetstream.enabled).toBe(true);
    const mongo = parse(
      readFileSync(join(repoRoot, 'deploy/helm/mongodb-replicaset.yaml'), 'utf8'),
    );
    expect(mongo.spec).toMatchObject({ type: 'ReplicaSet', members: 3 });
    const es = parse(readFileSync(join(repoRoot, 'deploy/helm/eck-elasticsearch.yaml'), 'utf8'));
    expect(es.kind).toBe('Elasticsearch');
    expect(es.spec.nodeSets[0].count).toBe(3);
  });

  it('helm - values the schema refuses do not render, and the error names the value', () => {
    const refused = (set: string) => {
      try {
        render(set);
      } catch (err) {
        return String((err as { stderr?: string }).stderr);
      }
      throw new Error(`helm rendered with ${set}`);
    };
    expect(refused('services.registry.grpcPort=not-a-port')).toContain(
      '/services/registry/grpcPort',
    );
    expect(refused('services.gateway.grpcPort=7099')).toContain("additional properties 'gateway'");
    expect(refused('nats.replicas=2')).toContain('/nats/replicas');
    expect(refused('nats.url=http://nats:4222')).toContain('/nats/url');
  });
});
