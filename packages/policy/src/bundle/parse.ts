import type { EntityJson } from '@cedar-policy/cedar-wasm/nodejs';
import { bundleHash } from '../compile/bundle.js';
import { isTimeZone, zoneKey } from '../model/clock.js';
import { bundleText } from './encoding.js';
import { OPERATION_CLASSES } from '@tollgate/core';
import type { OperationClass } from '@tollgate/core';
import { ACTION_GROUPS, isResourceName } from '../model/actions.js';
import type { ActionGroup } from '../model/actions.js';
import { BUNDLE_FORMAT } from './types.js';
import type {
  BundleAction,
  BundleOperation,
  BundleRateLimit,
  CompiledPolicy,
  PolicyBundle,
  PolicyEffect,
  PolicyKind,
} from './types.js';

/** Outcome of reading a bundle document: the bundle, or the first thing wrong with it. */
export type BundleParse = { ok: true; bundle: PolicyBundle } | { ok: false; reason: string };

const EFFECTS: readonly PolicyEffect[] = ['allow', 'deny', 'require_approval'];
const KINDS: readonly PolicyKind[] = [
  'tenant',
  'environment',
  'readonly',
  'limit',
  'field',
  'access',
  'field_roles',
  'grant',
  'cedar',
];

class BundleShapeError extends Error {}

/**
 * Reads a bundle from bytes (gzip'd or plain JSON), text or an already-decoded object and checks it strictly: every
 * member present with the right type, no unknown members, unique policy ids, and a hash that
 * matches the content. Cedar-level checks (schema and policy parsing) happen when a decider
 * loads it.
 */
export function parseBundle(input: Uint8Array | string | unknown): BundleParse {
  let value: unknown = input;
  if (typeof input === 'string' || input instanceof Uint8Array) {
    let text: string;
    try {
      text = typeof input === 'string' ? input : bundleText(input);
    } catch (err) {
      return { ok: false, reason: (err as Error).message };
    }
    try {
      value = JSON.parse(text);
    } catch (err) {
      return { ok: false, reason: `bundle is not valid JSON: ${(err as Error).message}` };
    }
  }
  let bundle: PolicyBundle;
  try {
    bundle = shape(value);
  } catch (err) {
    if (err instanceof BundleShapeError) return { ok: false, reason: err.message };
    throw err;
  }
  const { hash, ...body } = bundle;
  const computed = bundleHash(body);
  if (computed !== hash)
    return {
      ok: false,
      reason: `bundle hash mismatch: declared ${hash}, content hashes to ${computed}`,
    };
  return { ok: true, bundle };
}

function fail(path: string, message: string): never {
  throw new BundleShapeError(`bundle${path} ${message}`);
}

function record(
  value: unknown,
  path: string,
  required: string[],
  optional: string[] = [],
): Record<string, unknown> {
  if (typeof value !== 'object' || value === null || Array.isArray(value))
    fail(path, 'must be an object');
  const obj = value as Record<string, unknown>;
  for (const key of Object.keys(obj))
    if (![...required, ...optional].includes(key)) fail(`${path}.${key}`, 'is not a known member');
  for (const key of required) if (!(key in obj)) fail(`${path}.${key}`, 'is missing');
  return obj;
}

function text(value: unknown, path: string): string {
  if (typeof value !== 'string' || value === '') fail(path, 'must be a non-empty string');
  return value as string;
}

function whole(value: unknown, path: string, min: number): number {
  if (!Number.isSafeInteger(value) || (value as number) < min)
    fail(path, `must be a whole number ≥ ${min}`);
  return value as number;
}

function list<T>(value: unknown, path: string, item: (v: unknown, p: string) => T): T[] {
  if (!Array.isArray(value)) fail(path, 'must be a list');
  return (value as unknown[]).map((v, i) => item(v, `${path}[${i}]`));
}

function shape(value: unknown): PolicyBundle {
  const b = record(value, '', [
    'format',
    'tenant',
    'version',
    'schema',
    'actions',
    'operations',
    'redactionExemptions',
    'zones',
    'policies',
    'entities',
    'rateLimits',
    'hash',
  ]);
  if (b.format !== BUNDLE_FORMAT) fail('.format', `must be "${BUNDLE_FORMAT}"`);
  const zones = list(b.zones, '.zones', (v, p) => {
    const z = record(v, p, ['zone', 'key']);
    const zone = text(z.zone, `${p}.zone`);
    if (!isTimeZone(zone)) fail(`${p}.zone`, `"${zone}" is not a time zone`);
    if (z.key !== zoneKey(zone)) fail(`${p}.key`, `must be "${zoneKey(zone)}"`);
    return { zone, key: z.key as string };
  });
  const policies = list(b.policies, '.policies', policyShape);
  const ids = new Set<string>();
  for (const p of policies) {
    if (ids.has(p.id)) fail('.policies', `has two policies with id "${p.id}"`);
    ids.add(p.id);
  }
  const hash = text(b.hash, '.hash');
  if (!/^sha256:[0-9a-f]{64}$/.test(hash)) fail('.hash', 'must be sha256:<64 hex digits>');
  return {
    format: BUNDLE_FORMAT,
    tenant: text(b.tenant, '.tenant'),
    version: whole(b.version, '.version', 0),
    schema: text(b.schema, '.schema'),
    actions: list(b.actions, '.actions', actionShape),
    operations: operationsShape(b.operations),
    redactionExemptions: exemptionsShape(b.redactionExemptions),
    zones,
    policies,
    entities: list(b.entities, '.entities', entityShape),
    rateLimits: list(b.rateLimits, '.rateLimits', rateLimitShape),
    hash,
  };
}

function actionShape(value: unknown, path: string): BundleAction {
  const a = record(value, path, ['id', 'groups']);
  const groups = strings(a.groups, `${path}.groups`);
  for (const group of groups) {
    if (!(ACTION_GROUPS as readonly string[]).includes(group))
      fail(`${path}.groups`, `must hold only ${ACTION_GROUPS.join(', ')}`);
  }
  return { id: text(a.id, `${path}.id`), groups: groups as ActionGroup[] };
}

function operationsShape(value: unknown): Record<string, BundleOperation[]> {
  if (typeof value !== 'object' || value === null || Array.isArray(value))
    fail('.operations', 'must be an object');
  const out: Record<string, BundleOperation[]> = {};
  for (const [resource, ops] of Object.entries(value as Record<string, unknown>)) {
    if (!isResourceName(resource))
      fail(`.operations`, `names "${resource.slice(0, 64)}", not a resource`);
    out[resource] = list(ops, `.operations.${resource}`, (v, p) => {
      const o = record(v, p, ['name', 'action', 'class'], ['limited']);
      if (!(OPERATION_CLASSES as readonly unknown[]).includes(o.class))
        fail(`${p}.class`, `must be one of ${OPERATION_CLASSES.join(', ')}`);
      if (o.limited !== undefined && o.limited !== true) fail(`${p}.limited`, 'must be true');
      return {
        name: text(o.name, `${p}.name`),
        action: text(o.action, `${p}.action`),
        class: o.class as OperationClass,
        ...(o.limited === true ? { limited: true } : {}),
      };
    });
  }
  return out;
}

function exemptionsShape(value: unknown): Record<string, Record<string, string[]>> {
  const out: Record<string, Record<string, string[]>> = {};
  for (const [resource, fields] of Object.entries(plain(value, '.redactionExemptions'))) {
    if (!isResourceName(resource))
      fail('.redactionExemptions', `names "${resource.slice(0, 64)}", not a resource`);
    const path = `.redactionExemptions.${resource}`;
    const byField: Record<string, string[]> = {};
    for (const [field, roles] of Object.entries(plain(fields, path))) {
      if (field === '__proto__') fail(path, 'names "__proto__"');
      Object.defineProperty(byField, field, {
        value: strings(roles, `${path}.${field}`),
        enumerable: true,
        writable: true,
        configurable: true,
      });
    }
    out[resource] = byField;
  }
  return out;
}

function plain(value: unknown, path: string): Record<string, unknown> {
  if (typeof value !== 'object' || value === null || Array.isArray(value))
    fail(path, 'must be an object');
  return value as Record<string, unknown>;
}

function strings(value: unknown, path: string): string[] {
  return list(value, path, text);
}

function principalsShape(value: unknown, path: string): { roles: string[]; agents: string[] } {
  const p = record(value, path, ['roles', 'agents']);
  return { roles: strings(p.roles, `${path}.roles`), agents: strings(p.agents, `${path}.agents`) };
}

function policyShape(value: unknown, path: string): CompiledPolicy {
  const p = record(
    value,
    path,
    ['id', 'effect', 'kind', 'source', 'cedar'],
    ['resources', 'actions', 'grant'],
  );
  if (!EFFECTS.includes(p.effect as PolicyEffect))
    fail(`${path}.effect`, `must be one of ${EFFECTS.join(', ')}`);
  if (!KINDS.includes(p.kind as PolicyKind))
    fail(`${path}.kind`, `must be one of ${KINDS.join(', ')}`);
  const policy: CompiledPolicy = {
    id: text(p.id, `${path}.id`),
    effect: p.effect as PolicyEffect,
    kind: p.kind as PolicyKind,
    source: text(p.source, `${path}.source`),
    cedar: text(p.cedar, `${path}.cedar`),
  };
  if (p.resources !== undefined) policy.resources = strings(p.resources, `${path}.resources`);
  if (p.actions !== undefined) policy.actions = strings(p.actions, `${path}.actions`);
  if (p.grant !== undefined) {
    const g = record(p.grant, `${path}.grant`, ['principals', 'actions'], ['conditions']);
    policy.grant = {
      principals: principalsShape(g.principals, `${path}.grant.principals`),
      actions: strings(g.actions, `${path}.grant.actions`),
    };
    if (g.conditions !== undefined) {
      const cp = `${path}.grant.conditions`;
      const c = record(g.conditions, cp, [], ['ipCidr', 'timeWindow', 'environment']);
      policy.grant.conditions = {};
      if (c.ipCidr !== undefined)
        policy.grant.conditions.ipCidr = strings(c.ipCidr, `${cp}.ipCidr`);
      if (c.environment !== undefined)
        policy.grant.conditions.environment = strings(c.environment, `${cp}.environment`);
      if (c.timeWindow !== undefined) {
        const w = record(c.timeWindow, `${cp}.timeWindow`, ['start', 'end', 'zone']);
        policy.grant.conditions.timeWindow = {
          start: whole(w.start, `${cp}.timeWindow.start`, 0),
          end: whole(w.end, `${cp}.timeWindow.end`, 0),
          zone: text(w.zone, `${cp}.timeWindow.zone`),
        };
      }
    }
  }
  return policy;
}

function entityShape(value: unknown, path: string): EntityJson {
  const e = record(value, path, ['uid', 'attrs', 'parents'], ['tags']);
  const uid = record(e.uid, `${path}.uid`, ['type', 'id']);
  record(e.attrs, `${path}.attrs`, [], Object.keys((e.attrs as object) ?? {}));
  const parents = list(e.parents, `${path}.parents`, (v, p) => {
    const parent = record(v, p, ['type', 'id']);
    return { type: text(parent.type, `${p}.type`), id: text(parent.id, `${p}.id`) };
  });
  return {
    uid: { type: text(uid.type, `${path}.uid.type`), id: text(uid.id, `${path}.uid.id`) },
    attrs: e.attrs as EntityJson['attrs'],
    parents,
    ...(e.tags !== undefined ? { tags: e.tags as EntityJson['tags'] } : {}),
  };
}

function rateLimitShape(value: unknown, path: string): BundleRateLimit {
  const r = record(value, path, ['policyId', 'principals', 'actions', 'requests', 'perSeconds']);
  return {
    policyId: text(r.policyId, `${path}.policyId`),
    principals: principalsShape(r.principals, `${path}.principals`),
    actions: strings(r.actions, `${path}.actions`),
    requests: whole(r.requests, `${path}.requests`, 1),
    perSeconds: whole(r.perSeconds, `${path}.perSeconds`, 1),
  };
}
