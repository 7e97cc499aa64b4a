import { validate } from '@cedar-policy/cedar-wasm/nodejs';
import type { EntityJson } from '@cedar-policy/cedar-wasm/nodejs';
import type { AgentDescriptor, PolicyDescriptor } from '@tollgate/core';
import { BUNDLE_FORMAT } from '../bundle/types.js';
import type {
  BundleCompilation,
  BundleOperation,
  BundleRateLimit,
  CompiledPolicy,
  PolicyBundle,
  PolicyProblem,
} from '../bundle/types.js';
import { canonicalHash } from '@tollgate/core';
import { zoneForKey, zoneKey } from '../model/clock.js';
import type { ZoneKey } from '../model/clock.js';
import { bundleActions, cedarSchemaText } from '../model/schema.js';
import { baselinePolicies } from './baseline.js';
import { compileGrant } from './grant.js';
import { checkRawCedar, clockKeysIn, rawCedarPolicies } from './raw-cedar.js';
import { compileResource } from './resource.js';
import type { VersionedResource } from './resource.js';

/** Everything one tenant's bundle is compiled from. */
export interface BundleInputs {
  tenant: string;
  /** The bundle version; the service increments it on every change of the tenant's descriptors. */
  version: number;
  agents: AgentDescriptor[];
  policies: PolicyDescriptor[];
  resources: VersionedResource[];
  /**
   * Every operation of the tenant's resources by resource name, in whichever environment, that
   * grant patterns are checked against (a typo is a problem, an operation of a resource this
   * bundle does not hold is not). Defaults to the operations of `resources`.
   */
  knownOperations?: Readonly<Record<string, readonly BundleOperation[]>>;
}

/**
 * Compiles one tenant's agents, policies and resources into a `PolicyBundle`. Tenants never
 * share policies; a resource name stands for one resource in a bundle, so the policy service
 * compiles one bundle per environment of the tenant (and one without resources). Nothing
 * is half-compiled: any problem (wrong tenant, duplicate name, bad grant, invalid Cedar) fails
 * the whole bundle and every problem is reported. Same inputs (in any order) → same hash.
 */
export function compileBundle(inputs: BundleInputs): BundleCompilation {
  const problems: PolicyProblem[] = [];
  const { tenant, version } = inputs;
  if (typeof tenant !== 'string' || tenant === '')
    problems.push({ path: 'tenant', message: 'must be a non-empty string' });
  if (!Number.isSafeInteger(version) || version < 0)
    problems.push({ path: 'version', message: 'must be a whole number ≥ 0' });
  if (problems.length > 0) return { ok: false, problems };

  const roles = new Set<string>();
  const entities: EntityJson[] = [{ uid: { type: 'Tenant', id: tenant }, attrs: {}, parents: [] }];
  const policies: CompiledPolicy[] = [];
  const operations: Record<string, BundleOperation[]> = {};
  const redactionExemptions: Record<string, Record<string, string[]>> = {};
  const rateLimits: BundleRateLimit[] = [];
  const zones = new Set<string>();
  const rawCedar: { name: string; text: string }[] = [];

  entities.push(...compileAgents(inputs.agents ?? [], tenant, roles, problems));

  const resourceNames = new Set<string>();
  for (const entry of inputs.resources ?? []) {
    const compiled = compileResource(entry, tenant);
    problems.push(...compiled.problems);
    const name = entry.descriptor?.metadata?.name;
    if (compiled.problems.length === 0 && resourceNames.has(name)) {
      problems.push({ path: `Resource/${name}`, message: 'declared twice' });
    }
    resourceNames.add(name);
    entities.push(...compiled.entities);
    policies.push(...compiled.policies);
    compiled.roles.forEach((r) => roles.add(r));
    if (compiled.operations !== undefined) operations[name] = compiled.operations;
    if (
      compiled.redactionExemptions !== undefined &&
      Object.keys(compiled.redactionExemptions).length > 0
    )
      redactionExemptions[name] = compiled.redactionExemptions;
  }

  const policyNames = new Set<string>();
  for (const descriptor of inputs.policies ?? []) {
    const name = descriptor?.metadata?.name;
    const path = `Policy/${String(name)}`;
    if (typeof name !== 'string' || name === '') {
      problems.push({ path, message: 'metadata.name must be a non-empty string' });
      continue;
    }
    if (policyNames.has(name)) problems.push({ path, message: 'declared twice' });
    policyNames.add(name);
    if (descriptor.metadata.tenant !== tenant) {
      problems.push({
        path: `${path}/metadata.tenant`,
        message: `belongs to tenant "${descriptor.metadata.tenant}", not "${tenant}"`,
      });
    }
    const grants = descriptor.spec?.grants ?? [];
    if (!Array.isArray(grants))
      problems.push({ path: `${path}/spec.grants`, message: 'must be a list' });
    (Array.isArray(grants) ? grants : []).forEach((grant, i) => {
      const compiled = compileGrant(grant, name, i, operations, inputs.knownOperations);
      problems.push(...compiled.problems);
      if (compiled.policy) policies.push(compiled.policy);
      if (compiled.rateLimit) rateLimits.push(compiled.rateLimit);
      if (compiled.zone) zones.add(compiled.zone);
      compiled.policy?.grant?.principals.roles.forEach((r) => roles.add(r));
    });
    if (descriptor.spec?.cedar !== undefined) rawCedar.push({ name, text: descriptor.spec.cedar });
  }

  for (const { name, text } of rawCedar) {
    for (const key of clockKeysIn(String(text))) {
      const zone = zoneForKey(key);
      if (zone) zones.add(zone);
      else
        problems.push({
          path: `Policy/${name}/spec.cedar`,
          message: `context.clock.${key}: no time zone has the key "${key}" (Europe/Berlin → Europe_Berlin)`,
        });
    }
  }
  const zoneKeys = zoneKeysOf(zones, problems);
  const actions = bundleActions(
    operations,
    policies.flatMap((p) => (p.kind === 'grant' ? (p.actions ?? []) : [])),
  );
  const schema = cedarSchemaText(
    zoneKeys.map((z) => z.key),
    actions,
  );
  policies.push(...baselinePolicies(actions));

  for (const { name, text } of rawCedar) {
    const checked = checkRawCedar(text, schema, `Policy/${name}/spec.cedar`, actions);
    if (checked.ok) policies.push(...rawCedarPolicies(name, checked.policies));
    else problems.push(...checked.problems);
  }
  if (problems.length > 0) return { ok: false, problems };

  problems.push(...validateCompiled(policies, schema));
  if (problems.length > 0) return { ok: false, problems };

  for (const role of roles)
    entities.push({
      uid: { type: 'Role', id: role },
      attrs: {},
      parents: [{ type: 'Tenant', id: tenant }],
    });
  const body: Omit<PolicyBundle, 'hash'> = {
    format: BUNDLE_FORMAT,
    tenant,
    version,
    schema,
    actions,
    operations: sortedByKey(operations),
    redactionExemptions: sortedByKey(redactionExemptions),
    zones: zoneKeys,
    policies: policies.sort((a, b) => compare(a.id, b.id)),
    entities: entities.sort((a, b) => compare(uidKey(a), uidKey(b))),
    rateLimits: rateLimits.sort((a, b) => compare(a.policyId, b.policyId)),
  };
  return { ok: true, bundle: { ...body, hash: bundleHash(body) } };
}

/** `sha256:<hex>` of the canonical JSON of a bundle without its hash. */
export function bundleHash(body: Omit<PolicyBundle, 'hash'>): string {
  return `sha256:${canonicalHash(body)}`;
}

function compileAgents(
  agents: AgentDescriptor[],
  tenant: string,
  roles: Set<string>,
  problems: PolicyProblem[],
): EntityJson[] {
  const seen = new Set<string>();
  const entities: EntityJson[] = [];
  for (const agent of agents) {
    const name = agent?.metadata?.name;
    const path = `Agent/${String(name)}`;
    if (typeof name !== 'string' || name === '') {
      problems.push({ path, message: 'metadata.name must be a non-empty string' });
      continue;
    }
    if (seen.has(name)) problems.push({ path, message: 'declared twice' });
    seen.add(name);
    if (agent.metadata.tenant !== tenant) {
      problems.push({
        path: `${path}/metadata.tenant`,
        message: `belongs to tenant "${agent.metadata.tenant}", not "${tenant}"`,
      });
    }
    const agentRoles = agent.spec?.roles;
    if (!Array.isArray(agentRoles) || agentRoles.some((r) => typeof r !== 'string' || r === '')) {
      problems.push({
        path: `${path}/spec.roles`,
        message: 'must be a list of non-empty role names',
      });
      continue;
    }
    const user = agent.spec.user;
    if (user !== undefined && (typeof user !== 'string' || user === '')) {
      problems.push({ path: `${path}/spec.user`, message: 'must be a non-empty string' });
      continue;
    }
    const sorted = [...new Set(agentRoles)].sort();
    sorted.forEach((r) => roles.add(r));
    entities.push({
      uid: { type: 'Agent', id: name },
      attrs: { tenant, ...(user ? { user: { __entity: { type: 'User', id: user } } } : {}) },
      parents: [...sorted.map((id) => ({ type: 'Role', id })), { type: 'Tenant', id: tenant }],
    });
    if (user)
      entities.push({
        uid: { type: 'User', id: user },
        attrs: {},
        parents: [{ type: 'Tenant', id: tenant }],
      });
  }
  return dedupeUsers(entities);
}

function dedupeUsers(entities: EntityJson[]): EntityJson[] {
  const seen = new Set<string>();
  return entities.filter((e) => {
    const key = uidKey(e);
    return seen.has(key) ? false : (seen.add(key), true);
  });
}

function zoneKeysOf(zones: Set<string>, problems: PolicyProblem[]): ZoneKey[] {
  const byKey = new Map<string, string>();
  for (const zone of [...zones].sort()) {
    const key = zoneKey(zone);
    const other = byKey.get(key);
    if (other !== undefined)
      problems.push({
        path: 'zones',
        message: `time zones "${other}" and "${zone}" map to the same key "${key}"`,
      });
    byKey.set(key, zone);
  }
  return [...byKey.entries()]
    .map(([key, zone]) => ({ zone, key }))
    .sort((a, b) => compare(a.key, b.key));
}

/** Validates the whole compiled set; a failure here means a grant produced Cedar the schema rejects. */
function validateCompiled(policies: CompiledPolicy[], schema: string): PolicyProblem[] {
  const staticPolicies = Object.fromEntries(policies.map((p) => [p.id, p.cedar]));
  const result = validate({
    schema,
    policies: { staticPolicies },
    validationSettings: { mode: 'strict' },
  });
  if (result.type === 'failure')
    return result.errors.map((e) => ({ path: 'schema', message: e.message }));
  const sources = new Map(policies.map((p) => [p.id, p.source]));
  return result.validationErrors.map((v) => ({
    path: `${sources.get(v.policyId) ?? 'bundle'} (${v.policyId})`,
    message: v.error.message.replace(/^for policy `[^`]*`, /, ''),
  }));
}

function uidKey(entity: EntityJson): string {
  const uid = entity.uid as { type: string; id: string };
  return `${uid.type}\u0000${uid.id}`;
}

function sortedByKey<T>(record: Record<string, T>): Record<string, T> {
  return Object.fromEntries(Object.entries(record).sort(([a], [b]) => compare(a, b)));
}

function compare(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
