import type { AgentDescriptor, PolicyDescriptor, PublishedResource } from '@tollgate/core';
import { bundleHash, compileBundle } from '@tollgate/policy';
import type { PolicyBundle, PolicyProblem, VersionedResource } from '@tollgate/policy';

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
    resources.push({ version: only.version, descriptor: only.descriptor });
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
