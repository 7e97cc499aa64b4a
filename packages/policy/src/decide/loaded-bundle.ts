import type { EntityJson } from '@cedar-policy/cedar-wasm/nodejs';
import type { CompiledPolicy, PolicyBundle } from '../bundle/types.js';
import { OPERATIONS } from '../model/actions.js';
import { ZoneClock } from '../model/clock.js';
import { FIELD_ACTIONS } from '../model/schema.js';
import type { CedarEngine } from './engine.js';

/** Request inputs a policy set's policies mention; the decider leaves the others out. */
export interface SetReads {
  sourceIp: boolean;
  clock: boolean;
  limit: boolean;
  user: boolean;
  /** `Action::"read"`: the request then carries the action's group as an entity. */
  actionGroup: boolean;
}

/** One preparsed policy set: exactly the policies that can apply to one resource × action. */
export interface PolicySetView {
  id: string;
  policies: CompiledPolicy[];
  reads: SetReads;
}

/** A resource as the decider sees it, with one preparsed policy set per action. */
export interface ResourceView {
  name: string;
  entity: EntityJson;
  environment: string;
  maxLimit: number;
  version: number;
  fields: FieldView[];
  /** Every policy that can apply to the resource, whatever the action. */
  policies: CompiledPolicy[];
  /** By action id (`search` … `write`, `view_field`, `filter_field`). */
  sets: Map<string, PolicySetView>;
}

/** A field of a resource and its Cedar entity. */
export interface FieldView {
  name: string;
  entity: EntityJson;
  returnable: boolean;
  filterable: boolean;
}

/** An agent and the roles the bundle gives it. */
export interface AgentView {
  entity: EntityJson;
  roles: string[];
}

/** A parsed, Cedar-checked bundle with its lookups; immutable once built. */
export interface LoadedBundle {
  bundle: PolicyBundle;
  agents: Map<string, AgentView>;
  resources: Map<string, ResourceView>;
  policies: Map<string, CompiledPolicy>;
  clock: ZoneClock;
}

type Attrs = Record<string, unknown>;

/**
 * Checks a bundle with Cedar (schema, entities against the schema, policies) and preparses one
 * policy set per resource × action under `<namespace>/…`. Returns the reason on any failure.
 */
export function loadBundle(
  bundle: PolicyBundle,
  engine: CedarEngine,
  namespace: string,
): LoadedBundle | string {
  const schema = engine.preparseSchema(`${namespace}/schema`, bundle.schema);
  if (schema.type === 'failure')
    return `bundle schema does not parse: ${firstMessage(schema.errors)}`;
  const entities = engine.checkParseEntities({ entities: bundle.entities, schema: bundle.schema });
  if (entities.type === 'failure')
    return `bundle entities do not fit the schema: ${firstMessage(entities.errors)}`;

  const all = engine.checkParsePolicySet({
    staticPolicies: Object.fromEntries(bundle.policies.map((p) => [p.id, p.cedar])),
  });
  if (all.type === 'failure') return `bundle policies do not parse: ${firstMessage(all.errors)}`;

  const agents = new Map<string, AgentView>();
  const resources = new Map<string, ResourceView>();
  const fields: { resource: string; view: FieldView }[] = [];
  for (const entity of bundle.entities) {
    const uid = entity.uid as { type: string; id: string };
    const attrs = entity.attrs as Attrs;
    if (
      (uid.type === 'Agent' || uid.type === 'Resource' || uid.type === 'Field') &&
      attrs.tenant !== bundle.tenant
    ) {
      return `bundle entity ${uid.type}::"${uid.id}" belongs to tenant "${String(attrs.tenant)}", not "${bundle.tenant}"`;
    }
    if (uid.type === 'Agent') {
      const roles = (entity.parents as { type: string; id: string }[])
        .filter((p) => p.type === 'Role')
        .map((p) => p.id);
      agents.set(uid.id, { entity, roles });
    } else if (uid.type === 'Resource') {
      resources.set(uid.id, {
        name: uid.id,
        entity,
        environment: attrs.environment as string,
        maxLimit: attrs.maxLimit as number,
        version: attrs.version as number,
        fields: [],
        policies: [],
        sets: new Map(),
      });
    } else if (uid.type === 'Field') {
      const resource = ((attrs.resource as { __entity: { id: string } }).__entity ?? {}).id;
      const view = {
        name: attrs.name as string,
        entity,
        returnable: attrs.returnable === true,
        filterable: attrs.filterable === true,
      };
      fields.push({ resource, view });
    }
  }
  for (const { resource, view } of fields) {
    const owner = resources.get(resource);
    if (!owner) return `bundle field ${view.name} belongs to unknown resource "${resource}"`;
    owner.fields.push(view);
  }

  for (const resource of resources.values()) {
    resource.fields.sort((a, b) => (a.name < b.name ? -1 : 1));
    resource.policies = bundle.policies.filter(
      (p) => !p.resources || p.resources.includes(resource.name),
    );
    for (const action of [...OPERATIONS, ...FIELD_ACTIONS]) {
      const set: PolicySetView = {
        id: `${namespace}/${resource.name}/${action}`,
        policies: resource.policies.filter((p) => !p.actions || p.actions.includes(action)),
        reads: { sourceIp: false, clock: false, limit: false, user: false, actionGroup: false },
      };
      set.reads = readsOf(set.policies);
      const staticPolicies = Object.fromEntries(set.policies.map((p) => [p.id, p.cedar]));
      const parsed = engine.preparsePolicySet(set.id, { staticPolicies });
      if (parsed.type === 'failure')
        return `bundle policies do not parse: ${firstMessage(parsed.errors)}`;
      resource.sets.set(action, set);
    }
  }
  return {
    bundle,
    agents,
    resources,
    policies: new Map(bundle.policies.map((p) => [p.id, p])),
    clock: new ZoneClock(bundle.zones),
  };
}

/**
 * What a set's policies read, by the names in their text. Raw Cedar that uses `context` as a
 * whole (not `context.x` / `context has x`) makes the set read everything.
 */
function readsOf(policies: CompiledPolicy[]): SetReads {
  const text = policies.map((p) => p.cedar).join('\n');
  const whole = policies.some(
    (p) => p.kind === 'cedar' && /\bcontext\b(?!\s*(\.|has\b|\[))/.test(p.cedar),
  );
  const mentions = (pattern: RegExp) => whole || pattern.test(text);
  return {
    sourceIp: mentions(/\bsourceIp\b/),
    clock: mentions(/\bclock\b/),
    limit: mentions(/\blimit\b/),
    user: mentions(/\buser\b/),
    actionGroup: /Action::"read"/.test(text),
  };
}

function firstMessage(errors: { message: string }[]): string {
  return errors.map((e) => e.message).join('; ') || 'unknown Cedar error';
}
