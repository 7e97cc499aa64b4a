import {
  checkParsePolicySet,
  policySetTextToParts,
  policyToJson,
  validate,
} from '@cedar-policy/cedar-wasm/nodejs';
import type { DetailedError, EntityUidJson, PolicyJson } from '@cedar-policy/cedar-wasm/nodejs';
import type { BundleAction, CompiledPolicy, PolicyEffect, PolicyProblem } from '../bundle/types.js';
import { ACTION_GROUPS } from '../model/actions.js';
import { cedarString, lineAndColumn } from '../model/cedar-text.js';

/** A raw Cedar policy split out of a Policy's `spec.cedar`, in source order. */
export interface RawCedarPolicy {
  text: string;
  effect: PolicyEffect;
  /** From the policy's scope: the resources and actions it can apply to (absent = any). */
  resources?: string[];
  actions?: string[];
}

/** Zone keys raw Cedar reads through `context.clock.<key>`. */
export function clockKeysIn(text: string): string[] {
  return [
    ...new Set(
      [...text.matchAll(/context\s*\.\s*clock\s*\.\s*([A-Za-z_][A-Za-z0-9_]*)/g)].map(
        (m) => m[1] as string,
      ),
    ),
  ];
}

/**
 * Parses `text` and validates it (strict mode) against `schema`. Problems carry the 1-based
 * line and column inside `text` and Cedar's own message and hint. On success the policies come
 * back split, in source order, with their effect: `forbid` → deny; `permit` → allow, or
 * require_approval when annotated `@tollgate_effect("require_approval")`.
 */
export function checkRawCedar(
  text: string,
  schema: string,
  path: string,
  actions: readonly BundleAction[],
): { ok: true; policies: RawCedarPolicy[] } | { ok: false; problems: PolicyProblem[] } {
  if (typeof text !== 'string' || text.trim() === '') {
    return { ok: false, problems: [{ path, message: 'Cedar text is empty' }] };
  }
  const parsed = checkParsePolicySet({ staticPolicies: text });
  if (parsed.type === 'failure')
    return { ok: false, problems: parsed.errors.map((e) => located(e, text, path)) };

  const validation = validate({
    schema,
    policies: { staticPolicies: text },
    validationSettings: { mode: 'strict' },
  });
  if (validation.type === 'failure') {
    return { ok: false, problems: validation.errors.map((e) => located(e, text, path)) };
  }
  if (validation.validationErrors.length > 0) {
    const seen = new Set<string>();
    const problems = validation.validationErrors
      .map((v) => located(v.error, text, path))
      .filter((p) => {
        const key = `${p.line}:${p.column}:${p.message}`;
        return seen.has(key) ? false : (seen.add(key), true);
      });
    return { ok: false, problems };
  }

  const parts = policySetTextToParts(text);
  if (parts.type === 'failure')
    return { ok: false, problems: parts.errors.map((e) => located(e, text, path)) };
  if (parts.policy_templates.length > 0) {
    return {
      ok: false,
      problems: [{ path, message: 'Cedar templates are not supported; write static policies' }],
    };
  }
  const policies: RawCedarPolicy[] = [];
  const problems: PolicyProblem[] = [];
  for (const part of inSourceOrder(parts.policies, text)) {
    const json = policyToJson(part);
    if (json.type === 'failure') {
      problems.push(...json.errors.map((e) => located(e, text, path)));
      continue;
    }
    const declared = json.json.annotations?.['tollgate_effect'];
    const permit = json.json.effect === 'permit';
    if (
      declared !== undefined &&
      declared !== (permit ? 'allow' : 'deny') &&
      !(permit && declared === 'require_approval')
    ) {
      const where = lineAndColumn(
        text,
        Buffer.byteLength(text.slice(0, Math.max(0, text.indexOf(part))), 'utf8'),
      );
      problems.push({
        path,
        ...where,
        message: `@tollgate_effect("${declared}") does not fit a ${json.json.effect}; use "require_approval" on a permit or leave it out`,
      });
      continue;
    }
    policies.push({
      text: part,
      effect: !permit ? 'deny' : declared === 'require_approval' ? 'require_approval' : 'allow',
      ...scopeOf(json.json, actions),
    });
  }
  return problems.length > 0 ? { ok: false, problems } : { ok: true, policies };
}

/** Raw Cedar policies of one Policy as bundle policies (`policy/<name>/cedar/<i>`). */
export function rawCedarPolicies(policyName: string, policies: RawCedarPolicy[]): CompiledPolicy[] {
  return policies.map((p, i) => {
    const id = `policy/${policyName}/cedar/${i}`;
    return {
      id,
      effect: p.effect,
      kind: 'cedar',
      source: `Policy/${policyName}`,
      ...(p.resources ? { resources: p.resources } : {}),
      ...(p.actions ? { actions: p.actions } : {}),
      cedar: `@id(${cedarString(id)})\n@tollgate_effect(${cedarString(p.effect)})\n${withoutTollgateAnnotations(p.text)}`,
    };
  });
}

/** Drops `@id` / `@tollgate_effect` from the annotations before the effect; the bundle sets its own. */
function withoutTollgateAnnotations(text: string): string {
  const effectAt = Math.max(0, text.search(/\b(permit|forbid)\s*\(/));
  const header = text
    .slice(0, effectAt)
    .replace(/@(id|tollgate_effect)\s*\(\s*"(?:[^"\\]|\\.)*"\s*\)\s*/g, '');
  return header + text.slice(effectAt);
}

function located(error: DetailedError, text: string, path: string): PolicyProblem {
  const message = error.message
    .replace(/^for policy `[^`]*`, /, '')
    .replace(/ for Action::"[a-z_]+"$/, '');
  const detail = [message, error.sourceLocations?.[0]?.label, error.help]
    .filter(Boolean)
    .join('; ');
  const start = error.sourceLocations?.[0]?.start;
  if (start === undefined) return { path, message: detail };
  const { line, column } = lineAndColumn(text, start);
  return { path, line, column, message: `line ${line}, column ${column}: ${detail}` };
}

/** Cedar returns the parts sorted by generated id; restore the order they were written in. */
function inSourceOrder(parts: string[], text: string): string[] {
  const used = new Set<number>();
  const located = parts.map((part, i) => {
    let at = text.indexOf(part);
    while (at >= 0 && used.has(at)) at = text.indexOf(part, at + 1);
    if (at >= 0) used.add(at);
    return { part, at: at < 0 ? Number.MAX_SAFE_INTEGER : at, i };
  });
  return located.sort((a, b) => a.at - b.at || a.i - b.i).map((l) => l.part);
}

/** The resources and actions a policy's scope limits it to, so the decider can leave it out elsewhere. */
function scopeOf(
  policy: PolicyJson,
  actions: readonly BundleAction[],
): { resources?: string[]; actions?: string[] } {
  const members = (id: string): readonly string[] =>
    (ACTION_GROUPS as readonly string[]).includes(id)
      ? actions.filter((a) => (a.groups as readonly string[]).includes(id)).map((a) => a.id)
      : [id];
  const uid = (e: EntityUidJson) => ('__entity' in e ? e.__entity : e);
  const scope: { resources?: string[]; actions?: string[] } = {};
  const action = policy.action;
  const actionIds =
    action.op === '==' && 'entity' in action
      ? [uid(action.entity).id]
      : action.op === 'in'
        ? 'entities' in action
          ? action.entities.map((e) => uid(e).id)
          : [uid(action.entity).id]
        : undefined;
  if (actionIds) scope.actions = [...new Set(actionIds.flatMap(members))].sort();
  const resource = policy.resource;
  if ((resource.op === '==' || resource.op === 'in') && 'entity' in resource) {
    const { type, id } = uid(resource.entity);
    if (type === 'Resource') scope.resources = [id];
    if (type === 'Field') scope.resources = [id.slice(0, Math.max(0, id.indexOf('/')))];
  }
  return scope;
}
