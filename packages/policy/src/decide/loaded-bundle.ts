import type { EntityJson } from '@cedar-policy/cedar-wasm/nodejs';
import { toolName } from '@tollgate/core';
import type {
  BundleAction,
  BundleOperation,
  CompiledPolicy,
  PolicyBundle,
} from '../bundle/types.js';
import { ZoneClock } from '../model/clock.js';
import { FIELD_ACTIONS, actionEntities } from '../model/schema.js';
import type { CedarEngine } from './engine.js';

/** Request inputs a policy set's policies mention; the decider leaves the others out. */
export interface SetReads {
  sourceIp: boolean;
  clock: boolean;
  limit: boolean;
  user: boolean;
  /** An action group (`Action::"read"`, …): the request then carries the action's groups. */
  actionGroup: boolean;
}

/**
 * One policy set: exactly the policies that can apply to one resource × action. Preparsed by
 * Cedar on first use (`preparedSet`), not at load: a bundle of 1,000 resources holds thousands
 * of sets and most are never asked for by one decider.
 */
export interface PolicySetView {
  id: string;
  policies: CompiledPolicy[];
  reads: SetReads;
  /** Set once Cedar holds this set's policies under `id` for this loaded bundle. */
  prepared: boolean;
}

/** A resource as the decider sees it, with one preparsed policy set per action. */
export interface ResourceView {
  name: string;
  entity: EntityJson;
  environment: string;
  maxLimit: number;
  version: number;
  fields: FieldView[];
  /** Its operations, in its kind's order. */
  operations: BundleOperation[];
  /** Redacted fields by the roles that see them as stored. */
  redactionExemptions: Record<string, string[]>;
  /** Every policy that can apply to the resource, whatever the action. */
  policies: CompiledPolicy[];
  /** By action id (its operations' actions, `view_field`, `filter_field`). */
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
  /** The bundle's operation actions by id. */
  actions: Map<string, BundleAction>;
  /** Every action as an entity with its groups, for evaluation without the schema. */
  actionEntities: EntityJson[];
  /** Each resource operation by its tool name (`<resource>_<operation>`). */
  tools: Map<string, { resource: string; operation: string }>;
}

type Attrs = Record<string, unknown>;

/**
 * Checks a bundle with Cedar (schema, entities against the schema, policies) and lays out one
 * policy set per resource × action under `<namespace>/…`, preparsed on first use
 * (`preparedSet`). Returns the reason on any failure.
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
        operations: bundle.operations[uid.id] ?? [],
        redactionExemptions: bundle.redactionExemptions[uid.id] ?? {},
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

  // Policies by the resource they name (a policy naming none applies to every resource), so
  // each resource's share is found without scanning every policy of the bundle.
  const everywhere: CompiledPolicy[] = [];
  const byResource = new Map<string, CompiledPolicy[]>();
  for (const policy of bundle.policies) {
    if (!policy.resources) {
      everywhere.push(policy);
      continue;
    }
    for (const name of new Set(policy.resources)) {
      const list = byResource.get(name);
      if (list) list.push(policy);
      else byResource.set(name, [policy]);
    }
  }
  const order = new Map(bundle.policies.map((p, i) => [p, i]));
  for (const resource of resources.values()) {
    resource.fields.sort((a, b) => (a.name < b.name ? -1 : 1));
    resource.policies = [...everywhere, ...(byResource.get(resource.name) ?? [])].sort(
      (a, b) => (order.get(a) ?? 0) - (order.get(b) ?? 0),
    );
    // Every action of the bundle, not only the resource's own: an operation the resource does
    // not offer (a write on a read-only one) is then denied by the guard that says why.
    const actions = new Set([...bundle.actions.map((a) => a.id), ...FIELD_ACTIONS]);
    for (const action of actions) {
      const policies = resource.policies.filter((p) => !p.actions || p.actions.includes(action));
      resource.sets.set(action, {
        id: `${namespace}/${resource.name}/${action}`,
        policies,
        reads: readsOf(policies),
        prepared: false,
      });
    }
  }
  return {
    bundle,
    agents,
    resources,
    policies: new Map(bundle.policies.map((p) => [p.id, p])),
    clock: new ZoneClock(bundle.zones),
    actions: new Map(bundle.actions.map((a) => [a.id, a])),
    actionEntities: actionEntities(bundle.actions),
    tools: new Map(
      [...resources.values()].flatMap((view) =>
        view.operations.map(
          (op) =>
            [toolName(view.name, op.name), { resource: view.name, operation: op.name }] as const,
        ),
      ),
    ),
  };
}

/**
 * Makes Cedar hold `set` under its id (once per loaded bundle); the reason when it cannot.
 * The whole bundle already parsed at load, so a failure here means the engine itself failed.
 */
export function preparedSet(engine: CedarEngine, set: PolicySetView): string | undefined {
  if (set.prepared) return undefined;
  const staticPolicies = Object.fromEntries(set.policies.map((p) => [p.id, p.cedar]));
  let parsed: ReturnType<CedarEngine['preparsePolicySet']>;
  try {
    parsed = engine.preparsePolicySet(set.id, { staticPolicies });
  } catch (err) {
    return `policy engine failed preparing ${set.id}: ${err instanceof Error ? err.message : String(err)}`;
  }
  if (parsed.type === 'failure')
    return `policy set ${set.id} does not parse: ${firstMessage(parsed.errors)}`;
  set.prepared = true;
  return undefined;
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
    actionGroup: /Action::"(read|change|destroy)"/.test(text),
  };
}

function firstMessage(errors: { message: string }[]): string {
  return errors.map((e) => e.message).join('; ') || 'unknown Cedar error';
}
