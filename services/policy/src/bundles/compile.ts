import type { AgentDescriptor, PolicyDescriptor, PublishedResource } from '@tollgate/core';
import { bundleHash, compileBundle } from '@tollgate/policy';
import type { PolicyBundle, PolicyProblem, VersionedResource } from '@tollgate/policy';
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

/** A resource left out of the bundle (so every call on it is denied), and why. */
export interface ExcludedResource {
  name: string;
  reason: string;
}

/** Outcome of compiling a tenant. Problems never name a left-out resource. */
export type TenantCompilation =
  | { ok: true; bundle: PolicyBundle; excluded: ExcludedResource[] }
  | { ok: false; problems: PolicyProblem[]; excluded: ExcludedResource[] };

/**
 * Compiles a tenant's bundle. Resources are the registry's to validate, so a resource that
 * cannot be compiled does not block the tenant's policies: it is left out of the bundle (fail
 * closed — the decider denies calls on a resource it does not know) and reported in
 * `excluded`. A bundle holds one resource per name; a name live in several environments is
 * left out the same way. Problems in agents or policies fail the whole compilation.
 */
export function compileTenant(inputs: TenantInputs): TenantCompilation {
  const excluded: ExcludedResource[] = [];
  const byName = new Map<string, PublishedResource[]>();
  for (const resource of inputs.resources) {
    byName.set(resource.name, [...(byName.get(resource.name) ?? []), resource]);
  }
  let resources: VersionedResource[] = [];
  for (const [name, versions] of [...byName.entries()].sort(([a], [b]) => (a < b ? -1 : 1))) {
    if (versions.length > 1) {
      const environments = versions.map((v) => v.environment).sort();
      excluded.push({
        name,
        reason: `declared in environments ${environments.join(', ')}; a tenant's bundle holds one resource per name`,
      });
      continue;
    }
    const [only] = versions as [PublishedResource];
    const kind = resourceKinds.find(only.descriptor.spec.type);
    if (kind === undefined) {
      excluded.push({
        name,
        reason: `its kind "${only.descriptor.spec.type}" is not registered here`,
      });
      continue;
    }
    resources.push({
      version: only.version,
      descriptor: only.descriptor,
      operations: kind.operations(only.descriptor),
    });
  }
  const compile = () =>
    compileBundle({
      tenant: inputs.tenant,
      version: inputs.version,
      agents: inputs.agents,
      policies: inputs.policies,
      resources,
    });
  let result = compile();
  if (!result.ok) {
    const broken = new Map<string, string>();
    for (const problem of result.problems) {
      const name = /^Resource\/([^/]+)/.exec(problem.path)?.[1];
      if (name !== undefined && !broken.has(name))
        broken.set(name, `${problem.path}: ${problem.message}`);
    }
    if (broken.size > 0) {
      for (const [name, reason] of broken) excluded.push({ name, reason });
      resources = resources.filter((r) => !broken.has(r.descriptor.metadata.name));
      result = compile();
    }
  }
  return result.ok
    ? { ok: true, bundle: result.bundle, excluded }
    : { ok: false, problems: result.problems, excluded };
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

  /** Compiles (or recalls) the tenant's bundle; on success also its `bundleContentHash`. */
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
    // Compiled at version 0, the bundle's hash is its content hash.
    return result.ok
      ? {
          ...result,
          bundle: withVersion(result.bundle, inputs.version),
          contentHash: result.bundle.hash,
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

/** Hash of a bundle's content regardless of its version: unchanged inputs → unchanged hash. */
export function bundleContentHash(bundle: PolicyBundle): string {
  const { hash: _hash, ...body } = bundle;
  return bundleHash({ ...body, version: 0 });
}

/** The Cedar text a Policy contributed to a bundle (its compiled grants and raw Cedar). */
export function cedarOfPolicy(bundle: PolicyBundle, name: string): string {
  const source = `Policy/${name}`;
  return bundle.policies
    .filter((p) => p.source === source)
    .map((p) => p.cedar)
    .join('\n\n');
}
