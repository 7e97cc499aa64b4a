import { TABLE_OPERATIONS } from '@tollgate/core';
import type { Grant, GrantEffect } from '@tollgate/core';
import { formatActionPattern, parseActionPattern } from '../model/actions.js';
import type { ActionPattern } from '../model/actions.js';
import { cedarEntity, cedarSet, cedarString } from '../model/cedar-text.js';
import { zoneKey } from '../model/clock.js';
import { parseIpRange } from '../model/ip.js';
import { parseTimeWindow, timeWindowCedar } from '../model/time-window.js';
import type { TimeWindow } from '../model/time-window.js';
import type {
  BundleOperation,
  BundleRateLimit,
  CompiledConditions,
  CompiledPolicy,
  PolicyProblem,
} from '../bundle/types.js';

/** What one grant compiles to. */
export interface CompiledGrant {
  policy?: CompiledPolicy;
  rateLimit?: BundleRateLimit;
  /** Time zone its window uses. */
  zone?: string;
  problems: PolicyProblem[];
}

const EFFECTS: readonly GrantEffect[] = ['allow', 'deny', 'require_approval'];
const CONDITION_KEYS = ['ipCidr', 'timeWindow', 'environment'];

/**
 * Compiles one grant of a Policy to a Cedar policy: `deny` → `forbid`, `allow` and
 * `require_approval` → `permit` annotated `@tollgate_effect(…)`. Conditions become `when`
 * clauses: an IP list tests `context.sourceIp` (a deny also applies when the caller's IP is
 * unknown — fail closed), a time window tests `context.clock.<zone>`, an environment list tests
 * the resource's environment. Action patterns are expanded against the tenant's resources'
 * `operations` (see `actionsOf`); a pattern is checked against `known` (every operation of the
 * tenant's resources in any environment; `operations` when not given), so a grant naming an
 * operation of another environment's resource is valid in a bundle that lacks it.
 */
export function compileGrant(
  grant: Grant,
  policyName: string,
  index: number,
  operations: Operations = {},
  known: Operations = operations,
): CompiledGrant {
  const id = `policy/${policyName}/grant/${index}`;
  const path = `Policy/${policyName}/spec.grants[${index}]`;
  const problems: PolicyProblem[] = [];
  const problem = (where: string, message: string): void => {
    problems.push({ path: `${path}${where}`, message });
  };

  if (!EFFECTS.includes(grant.effect))
    problem('.effect', `effect must be one of ${EFFECTS.join(', ')}`);
  const roles = stringList(grant.principals?.roles, '.principals.roles', problem);
  const agents = stringList(grant.principals?.agents, '.principals.agents', problem);
  if (roles.length + agents.length === 0)
    problem('.principals', 'a grant needs at least one role or agent');

  const patterns: ActionPattern[] = [];
  if (!Array.isArray(grant.actions) || grant.actions.length === 0)
    problem('.actions', 'a grant needs at least one action');
  (Array.isArray(grant.actions) ? grant.actions : []).forEach((text, i) => {
    const parsed =
      typeof text === 'string' ? parseActionPattern(text) : 'an action must be a string';
    if (typeof parsed === 'string') problem(`.actions[${i}]`, parsed);
    else {
      const unknown = unknownOperation(parsed, known);
      if (unknown !== undefined) problem(`.actions[${i}]`, `"${String(text)}": ${unknown}`);
      else patterns.push(parsed);
    }
  });

  const conditions = compileConditions(grant, problem);
  const rateLimit = compileRateLimit(grant, id, roles, agents, problem);
  if (problems.length > 0) return { problems };

  const effect = grant.effect;
  const actions = [...new Set(patterns.map(formatActionPattern))].sort();
  const cedar = grantCedar(
    { id, effect, roles, agents, patterns, conditions: conditions.cedar },
    operations,
  );
  const resources = patterns.some((p) => p.resource === '*')
    ? undefined
    : [...new Set(patterns.map((p) => p.resource))].sort();
  const policy: CompiledPolicy = {
    id,
    effect,
    kind: 'grant',
    source: `Policy/${policyName}`,
    ...(resources ? { resources } : {}),
    actions: actionsOfAll(patterns, operations),
    grant: {
      principals: { roles, agents },
      actions,
      ...(conditions.compiled ? { conditions: conditions.compiled } : {}),
    },
    cedar,
  };
  return {
    policy,
    ...(rateLimit ? { rateLimit: { ...rateLimit, actions } } : {}),
    ...(conditions.window ? { zone: conditions.window.zone } : {}),
    problems,
  };
}

type Report = (where: string, message: string) => void;

function stringList(value: unknown, where: string, problem: Report): string[] {
  if (value === undefined) return [];
  if (!Array.isArray(value) || value.some((item) => typeof item !== 'string' || item === '')) {
    problem(where, 'must be a list of non-empty names');
    return [];
  }
  return [...new Set(value as string[])].sort();
}

interface ConditionParts {
  compiled?: CompiledConditions;
  window?: TimeWindow;
  /** Cedar `when` bodies, one per condition; `deny` decides how an unknown IP counts. */
  cedar: (deny: boolean) => string[];
}

function compileConditions(grant: Grant, problem: Report): ConditionParts {
  const raw = grant.conditions;
  if (raw === undefined) return { cedar: () => [] };
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) {
    problem('.conditions', 'must be an object');
    return { cedar: () => [] };
  }
  for (const key of Object.keys(raw)) {
    if (!CONDITION_KEYS.includes(key))
      problem(`.conditions.${key}`, `unknown condition; use ${CONDITION_KEYS.join(', ')}`);
  }
  const compiled: CompiledConditions = {};
  let window: TimeWindow | undefined;

  if (raw.ipCidr !== undefined) {
    if (!Array.isArray(raw.ipCidr) || raw.ipCidr.length === 0)
      problem('.conditions.ipCidr', 'must be a non-empty list');
    else {
      const ranges = raw.ipCidr.map((text, i) => {
        const range = typeof text === 'string' ? parseIpRange(text) : 'must be a string';
        if (typeof range === 'string') problem(`.conditions.ipCidr[${i}]`, range);
        return typeof range === 'string' ? '' : range.text;
      });
      compiled.ipCidr = [...new Set(ranges)].sort();
    }
  }
  if (raw.timeWindow !== undefined) {
    const parsed =
      typeof raw.timeWindow === 'string' ? parseTimeWindow(raw.timeWindow) : 'must be a string';
    if (typeof parsed === 'string') problem('.conditions.timeWindow', parsed);
    else {
      window = parsed;
      compiled.timeWindow = { start: parsed.start, end: parsed.end, zone: parsed.zone };
    }
  }
  if (raw.environment !== undefined) {
    const list = stringList(raw.environment, '.conditions.environment', problem);
    if (list.length === 0) problem('.conditions.environment', 'must be a non-empty list');
    compiled.environment = list;
  }

  const cedar = (deny: boolean): string[] => {
    const clauses: string[] = [];
    if (compiled.ipCidr) {
      const ranges = compiled.ipCidr
        .map((r) => `context.sourceIp.isInRange(ip(${cedarString(r)}))`)
        .join(' || ');
      clauses.push(
        deny
          ? `if context has sourceIp then ${ranges} else true`
          : `context has sourceIp && (${ranges})`,
      );
    }
    if (window) clauses.push(timeWindowCedar(window, zoneKey(window.zone)));
    if (compiled.environment) {
      clauses.push(
        `${cedarSet(compiled.environment.map(cedarString))}.contains(resource.environment)`,
      );
    }
    return clauses;
  };
  return {
    ...(Object.keys(compiled).length > 0 ? { compiled } : {}),
    ...(window ? { window } : {}),
    cedar,
  };
}

function compileRateLimit(
  grant: Grant,
  policyId: string,
  roles: string[],
  agents: string[],
  problem: Report,
): BundleRateLimit | undefined {
  const limit = grant.rateLimit;
  if (limit === undefined) return undefined;
  if (grant.effect === 'deny') {
    problem('.rateLimit', 'a deny grant cannot carry a rate limit');
    return undefined;
  }
  const positive = (n: unknown): n is number => Number.isSafeInteger(n) && (n as number) > 0;
  if (
    typeof limit !== 'object' ||
    limit === null ||
    !positive(limit.requests) ||
    !positive(limit.perSeconds)
  ) {
    problem('.rateLimit', 'must be { requests, perSeconds } with positive whole numbers');
    return undefined;
  }
  return {
    policyId,
    principals: { roles, agents },
    actions: [],
    requests: limit.requests,
    perSeconds: limit.perSeconds,
  };
}

interface GrantText {
  id: string;
  effect: GrantEffect;
  roles: string[];
  agents: string[];
  patterns: ActionPattern[];
  conditions: (deny: boolean) => string[];
}

/** The resources' operations a grant's patterns are expanded against. */
type Operations = Readonly<Record<string, readonly BundleOperation[]>>;

/**
 * Why a pattern names an operation that cannot exist, if it does: a named resource's own
 * operations (or, for a resource not declared yet or `*`, any resource's) and the table
 * family's are the names there are. A typo (`orders.serach`, or a deny on `orders.wirte`)
 * would otherwise be a grant that silently applies to nothing.
 */
function unknownOperation(pattern: ActionPattern, operations: Operations): string | undefined {
  if (pattern.operation === '*') return undefined;
  const family = TABLE_OPERATIONS.map((op) => op.name);
  const own = pattern.resource === '*' ? undefined : operations[pattern.resource];
  const known = new Set([
    ...family,
    ...(own ?? Object.values(operations).flat()).map((op) => op.name),
  ]);
  if (known.has(pattern.operation)) return undefined;
  if (own !== undefined) {
    const names = [...new Set([...own.map((op) => op.name)])].join(', ');
    return `${pattern.resource} has no operation "${pattern.operation}" (it has: ${names})`;
  }
  return `no resource of this tenant has an operation "${pattern.operation}"`;
}

/**
 * The Cedar actions one pattern stands for: a named operation is its resource's action for it
 * (or the name itself when the resource does not declare it, so the grant applies once it
 * does); `*` stands for every operation of the resource (of every resource for `*.*`).
 */
function actionsOf(pattern: ActionPattern, operations: Operations): string[] {
  const resources =
    pattern.resource === '*' ? Object.values(operations) : [operations[pattern.resource] ?? []];
  if (pattern.operation === '*') {
    const all = resources.flatMap((ops) => ops.map((op) => op.action));
    if (pattern.resource === '*') all.push(...TABLE_OPERATIONS.map((op) => op.action));
    return all;
  }
  const named = pattern.operation;
  const declared = resources.flatMap((ops) => ops.filter((op) => op.name === named));
  return declared.length > 0 ? declared.map((op) => op.action) : [named];
}

function actionsOfAll(patterns: ActionPattern[], operations: Operations): string[] {
  return [...new Set(patterns.flatMap((p) => actionsOf(p, operations)))].sort();
}

function grantCedar(g: GrantText, operations: Operations): string {
  const deny = g.effect === 'deny';
  const scope = actionsOfAll(g.patterns, operations);
  const principals = [
    ...g.roles.map((r) => cedarEntity('Role', r)),
    ...g.agents.map((a) => cedarEntity('Agent', a)),
  ];
  const clauses = [`principal in ${cedarSet(principals)}`];
  const target = targetClause(g.patterns, scope, operations);
  if (target) clauses.push(target);
  clauses.push(...g.conditions(deny));
  return [
    `@id(${cedarString(g.id)})`,
    `@tollgate_effect(${cedarString(g.effect)})`,
    `${deny ? 'forbid' : 'permit'} (`,
    '  principal,',
    `  action in ${cedarSet(scope.map((op) => cedarEntity('Action', op)))},`,
    '  resource is Resource',
    ')',
    clauses.map((c) => `when { ${c} }`).join('\n') + ';',
  ].join('\n');
}

/** The resource × action combinations, when the scope's action list alone does not say it. */
function targetClause(
  patterns: ActionPattern[],
  scope: string[],
  operations: Operations,
): string | undefined {
  const byResource = new Map<string, Set<string>>();
  for (const p of patterns) {
    const actions = byResource.get(p.resource) ?? new Set<string>();
    for (const action of actionsOf(p, operations)) actions.add(action);
    byResource.set(p.resource, actions);
  }
  const anyResource = byResource.get('*');
  if (anyResource && anyResource.size === scope.length) return undefined;
  const entries = [...byResource.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  const single = entries.length === 1;
  const terms = entries.map(([resource, actions]) => {
    const allScoped = actions.size === scope.length;
    const opTest = `action in ${cedarSet([...actions].sort().map((op) => cedarEntity('Action', op)))}`;
    if (resource === '*') return opTest;
    const resTest = `resource == ${cedarEntity('Resource', resource)}`;
    return allScoped ? resTest : single ? `${resTest} && ${opTest}` : `(${resTest} && ${opTest})`;
  });
  return terms.join(' || ');
}
