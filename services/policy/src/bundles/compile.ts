import type { AgentDescriptor, PolicyDescriptor, PublishedResource } from '@tollgate/core';
import { canonicalHash } from '@tollgate/core';
import { bundleHash, compileBundle } from '@tollgate/policy';
import type {
  BundleOperation,
  PolicyBundle,
  PolicyProblem,
  VersionedResource,
} from '@tollgate/policy';
import { resourceKinds } from '@tollgate/kinds';

/** Everything one tenant's bundle is made of, as the service holds it. */
export interface TenantInputs {
  tenant: string;
  version: number;
  agents: AgentDescriptor[];
  policies: PolicyDescriptor[];
  /** The tenant's current resources, every environment, from the registry's KV projection. */
  resources: PublishedResource[];
}

/** A resource left out of its environment's bundle (so every call on it is denied), and why. */
export interface ExcludedResource {
  environment: string;
  name: string;
  reason: string;
}

/**
 * One bundle of a tenant: `environment` undefined for the bundle without resources (agents,
 * roles and policies; KV key `<tenant>`), else the bundle of that environment's resources (KV key
 * `<tenant>.<environment>`).
 */
export interface TenantBundle {
  environment?: string;
  bundle: PolicyBundle;
}

/** Outcome of compiling a tenant. Problems never name a left-out resource. */
export type TenantCompilation =
  | { ok: true; bundles: TenantBundle[]; excluded: ExcludedResource[] }
  | { ok: false; problems: PolicyProblem[]; excluded: ExcludedResource[] };

/**
 * Compiles a tenant's bundles: one without resources, and one per environment its resources
 * live in. A resource's identity is (tenant, environment, name), so the same name in two
 * environments is two resources, each in its own environment's bundle, where `Resource::"<name>"`
 * stands for exactly one entity with that environment's attributes; Policies are the tenant's
 * and compile into every bundle (a grant is checked against the operations of every
 * environment's resources). Resources are the registry's to validate, so a resource that cannot
 * be compiled does not block the tenant's policies: it is left out of its bundle (fail closed —
 * the decider denies calls on a resource it does not know) and reported in `excluded`. Problems
 * in agents or policies fail the whole compilation.
 */
export function compileTenant(inputs: TenantInputs): TenantCompilation {
  const excluded: ExcludedResource[] = [];
  const byEnvironment = new Map<string, VersionedResource[]>();
  const known: Record<string, BundleOperation[]> = {};
  const sorted = [...inputs.resources].sort((a, b) =>
    a.environment === b.environment
      ? compare(a.name, b.name)
      : compare(a.environment, b.environment),
  );
  for (const resource of sorted) {
    const kind = resourceKinds.find(resource.descriptor.spec.type);
    if (kind === undefined) {
      excluded.push({
        environment: resource.environment,
        name: resource.name,
        reason: `its kind "${resource.descriptor.spec.type}" is not registered here`,
      });
      continue;
    }
    const operations = kind.operations(resource.descriptor);
    const list = byEnvironment.get(resource.environment) ?? [];
    list.push({ version: resource.version, descriptor: resource.descriptor, operations });
    byEnvironment.set(resource.environment, list);
    const seen = new Set((known[resource.name] ?? []).map((op) => op.name));
    known[resource.name] = [
      ...(known[resource.name] ?? []),
      ...operations.filter((op) => !seen.has(op.name)),
    ];
  }
  const compile = (resources: VersionedResource[]) =>
    compileBundle({
      tenant: inputs.tenant,
      version: inputs.version,
      agents: inputs.agents,
      policies: inputs.policies,
      resources,
      knownOperations: known,
    });
  const base = compile([]);
  if (!base.ok) return { ok: false, problems: base.problems, excluded };
  const bundles: TenantBundle[] = [{ bundle: base.bundle }];
  for (const [environment, all] of byEnvironment) {
    let resources = all;
    let result = compile(resources);
    if (!result.ok) {
      const broken = new Map<string, string>();
      for (const problem of result.problems) {
        const name = /^Resource\/([^/]+)/.exec(problem.path)?.[1];
        if (name !== undefined && !broken.has(name))
          broken.set(name, `${problem.path}: ${problem.message}`);
      }
      if (broken.size > 0) {
        for (const [name, reason] of broken) excluded.push({ environment, name, reason });
        resources = resources.filter((r) => !broken.has(r.descriptor.metadata.name));
        result = compile(resources);
      }
    }
    if (!result.ok) return { ok: false, problems: result.problems, excluded };
    bundles.push({ environment, bundle: result.bundle });
  }
  return { ok: true, bundles, excluded };
}

function compare(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/** A declaration as the compiler takes it: its descriptor and canonical hash. */
export interface Hashed<D> {
  descriptor: D;
  hash: string;
}

/** What `TenantCompiler.compile` takes: like `TenantInputs`, declarations with their hashes. */
export interface HashedInputs {
  tenant: string;
  version: number;
  agents: Hashed<AgentDescriptor>[];
  policies: Hashed<PolicyDescriptor>[];
  resources: PublishedResource[];
}

const CACHED_TENANTS = 256;
const ENTRIES_PER_TENANT = 2;

/**
 * `compileTenant` with a small memory of recent results per tenant, keyed by the hashes of
 * everything compiled: the bundle Apply compiled to validate a change is the one the rebuild
 * after the commit needs, so a change costs one Cedar compilation, not two.
 */
export class TenantCompiler {
  readonly #recent = new Map<string, { key: string; result: TenantCompilation }[]>();

  /** Compiles (or recalls) the tenant's bundles; on success also their `tenantContentHash`. */
  compile(
    inputs: HashedInputs,
  ): (TenantCompilation & { ok: false }) | (TenantCompilation & { ok: true; contentHash: string }) {
    const key = JSON.stringify([
      ...inputs.agents.map((a) => `A/${a.descriptor.metadata.name}/${a.hash}`).sort(),
      ...inputs.policies.map((p) => `P/${p.descriptor.metadata.name}/${p.hash}`).sort(),
      ...inputs.resources.map((r) => `R/${r.environment}/${r.name}/${r.version}/${r.hash}`).sort(),
    ]);
    const entries = this.#recent.get(inputs.tenant) ?? [];
    let result = entries.find((e) => e.key === key)?.result;
    if (result === undefined) {
      result = compileTenant({
        tenant: inputs.tenant,
        version: 0,
        agents: inputs.agents.map((a) => a.descriptor),
        policies: inputs.policies.map((p) => p.descriptor),
        resources: inputs.resources,
      });
      this.#recent.delete(inputs.tenant);
      this.#recent.set(inputs.tenant, [{ key, result }, ...entries].slice(0, ENTRIES_PER_TENANT));
      if (this.#recent.size > CACHED_TENANTS) {
        const [oldest] = this.#recent.keys();
        if (oldest !== undefined) this.#recent.delete(oldest);
      }
    }
    // Compiled at version 0, the bundles' hashes are their content hashes.
    return result.ok
      ? {
          ...result,
          bundles: atVersion(result.bundles, inputs.version),
          contentHash: tenantContentHash(result.bundles),
        }
      : result;
  }
}

/** The same bundle under another version (and the hash that goes with it). */
export function withVersion(bundle: PolicyBundle, version: number): PolicyBundle {
  if (bundle.version === version) return bundle;
  const { hash: _hash, ...body } = bundle;
  const next = { ...body, version };
  return { ...next, hash: bundleHash(next) };
}

/** The same bundles under another version. */
export function atVersion(bundles: TenantBundle[], version: number): TenantBundle[] {
  return bundles.map((b) => ({ ...b, bundle: withVersion(b.bundle, version) }));
}

/** Hash of the content of a tenant's bundles regardless of their version. */
export function tenantContentHash(bundles: TenantBundle[]): string {
  return `sha256:${canonicalHash(
    bundles.map((b) => [b.environment ?? '', bundleContentHash(b.bundle)]),
  )}`;
}

/** Hash of a bundle's content regardless of its version: unchanged inputs → unchanged hash. */
export function bundleContentHash(bundle: PolicyBundle): string {
  const { hash: _hash, ...body } = bundle;
  return bundleHash({ ...body, version: 0 });
}

/**
 * The Cedar text a Policy contributed to a tenant's bundles (its compiled grants and raw Cedar):
 * the text of the bundle without resources when every environment's is the same, else each
 * environment's, headed by a comment naming it (grants expand against the resources they find).
 */
export function cedarOfPolicy(bundles: TenantBundle[], name: string): string {
  const source = `Policy/${name}`;
  const textOf = (bundle: PolicyBundle) =>
    bundle.policies
      .filter((p) => p.source === source)
      .map((p) => p.cedar)
      .join('\n\n');
  const texts = bundles.map((b) => ({ environment: b.environment, text: textOf(b.bundle) }));
  const distinct = new Set(texts.map((t) => t.text));
  if (distinct.size <= 1) return texts[0]?.text ?? '';
  return texts
    .filter((t) => t.environment !== undefined)
    .map((t) => `// environment "${t.environment}"\n${t.text}`)
    .join('\n\n');
}
