/**
 * The procedure a successful session followed, as a skill proposal: its successful tool calls
 * in order (failed ones and exact repeats left out) with their arguments; no argument value is
 * kept as a literal — a later value found in an earlier call's recorded result becomes a binding
 * to that result (`steps.<id><pointer>`), one equal to an input's is bound to it, and every other
 * value becomes an input (only a person fixes one as a constant, when confirming). The
 * description names the tools, never the session's own words. A session with fewer than two successful calls, or whose arguments hold
 * anything secret-looking, redacted or instruction-like, proposes nothing. Pure; the caller
 * still checks the proposal with `skillSpec` before proposing it.
 */
import { createHash } from 'node:crypto';
import { canonicalJson } from '@tollgate/core';
import { readRecordedSession } from '../sessions/recorded-calls.js';
import type { RecordedCall } from '../sessions/recorded-calls.js';
import { findInjection } from '@tollgate/core';
import { findSecretValues, pointerJoin } from '@tollgate/core';
import { argumentShape, jsonType, setAt } from './shape.js';
import type { ArgumentShape, Slot } from './shape.js';
import type { JsonObject, JsonValue, SkillContent, SkillParameter, SkillStep } from '../types.js';

/** A skill candidate's content, name, signal and evidence. */
export interface ProcedureProposal {
  name: string;
  content: SkillContent;
  /** `skill:` + sha256 of the tools and argument shapes: equal for the same procedure. */
  signal: string;
  /** Tollgate call ids of the steps, when the snapshot recorded them. */
  evidenceCallIds: string[];
  summary: string;
}

export type Procedure = { ok: true; proposal: ProcedureProposal } | { ok: false; reason: string };

/** Successful calls needed for a procedure. */
export const MIN_PROCEDURE_STEPS = 2;
/** Redaction markers (memory's and the executor's) standing where a value was. */
const REDACTED = /^(?:\*\*\*|\[redacted\]|sha256:[0-9a-f]{16})/;
/** Slots that size a result rather than say what to look at: never inputs or bindings. */
const SIZING_KEYS = new Set(['limit', 'size']);
const FAILURE_HANDLING =
  'Stop at the first step that fails and tell the user which step failed and why.';

/** The procedure in a session snapshot, or why there is none. */
export function extractProcedure(state: JsonObject): Procedure {
  const session = readRecordedSession(state);
  if (!session.ok) return session;
  return procedureOf(session.calls);
}

/** The procedure the calls of a session followed, or why there is none. */
export function procedureOf(recorded: readonly RecordedCall[]): Procedure {
  const calls = distinctSuccessful(recorded);
  if (calls.length < MIN_PROCEDURE_STEPS) {
    return {
      ok: false,
      reason: `${calls.length} successful tool call(s); a procedure needs at least ${MIN_PROCEDURE_STEPS}`,
    };
  }
  const unreadable = calls.findIndex((c) => c.arguments === undefined);
  if (unreadable >= 0) {
    return {
      ok: false,
      reason: `the arguments of successful call ${unreadable + 1} are not a JSON object (redacted?)`,
    };
  }
  const shapes = calls.map((c) => argumentShape(c.arguments ?? {}));
  for (const [i, shape] of shapes.entries()) {
    const unsafe = unsafeValue(shape.normalised);
    if (unsafe !== undefined) {
      return { ok: false, reason: `successful call ${i + 1}: ${unsafe}; nothing is proposed` };
    }
  }
  const ids = calls.map((_, i) => `step_${i + 1}`);
  const inputs: Input[] = [];
  const steps = calls.map((call, i): SkillStep => {
    const shape = shapes[i]!;
    const bindings = stepBindings(shape, inputs, calls.slice(0, i), ids, i);
    const args = structuredClone(shape.normalised);
    for (const pointer of Object.keys(bindings)) setAt(args, pointer, null);
    return {
      id: ids[i]!,
      tool: call.tool,
      arguments: args,
      bindings,
      description: stepDescription(call),
      onFailure: 'stop',
    };
  });
  const last = calls.at(-1)!;
  const tools = sortedSet(calls.map((c) => c.tool));
  const content: SkillContent = {
    description: describe(calls),
    instructions: steps.map((s, i) => instruction(s, calls[i]!, i)).join('\n'),
    tools,
    steps,
    inputs: inputs.map((i) => i.parameter),
    outputs: [
      {
        name: 'result',
        type: outputType(last.result),
        description: `What ${last.tool} returned.`,
        required: false,
        source: `steps.${ids.at(-1)}`,
      },
    ],
    resources: sortedSet(calls.flatMap((c) => (c.resource ? [c.resource] : []))),
    permissions: sortedSet(
      calls.flatMap((c) => (c.resource && c.operation ? [`${c.resource}.${c.operation}`] : [])),
    ),
    failureHandling: FAILURE_HANDLING,
  };
  const name = skillName(calls.map((c) => c.tool));
  const signal = `skill:${createHash('sha256')
    .update(canonicalJson(calls.map((c, i) => [c.tool, shapes[i]!.key])))
    .digest('hex')}`;
  return {
    ok: true,
    proposal: {
      name,
      content,
      signal,
      evidenceCallIds: calls.flatMap((c) => (c.callId ? [c.callId] : [])),
      summary: `Save skill "${name}": ${calls.map((c) => c.tool).join(' → ')}, as done in a session that succeeded.`,
    },
  };
}

/** Successful calls in order; an exact repeat of an earlier one adds nothing and is left out. */
function distinctSuccessful(calls: readonly RecordedCall[]): RecordedCall[] {
  const seen = new Set<string>();
  return calls.filter((call) => {
    if (!call.ok) return false;
    const key = canonicalJson([call.tool, call.arguments ?? null]);
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}

/** Why arguments cannot be kept (secret-looking, redacted, instruction-like), or undefined. */
function unsafeValue(args: JsonObject): string | undefined {
  const secret = findSecretValues(args)[0];
  if (secret !== undefined) return `argument ${secret.path} looks like a credential`;
  for (const [path, text] of strings(args, '')) {
    if (REDACTED.test(text)) return `argument ${path} was redacted`;
    if (findInjection(text) !== undefined) return `argument ${path} reads as instructions`;
  }
  return undefined;
}

interface Input {
  parameter: SkillParameter;
  path: string;
  value: JsonValue;
}

/**
 * Bindings of one step: a value equal to an input's is bound to the input; a value (or item of
 * a list value) found in the recorded result of an earlier step is bound to the nearest such
 * result; every other value becomes a new input (added to `inputs`).
 */
function stepBindings(
  shape: ArgumentShape,
  inputs: Input[],
  earlier: RecordedCall[],
  ids: string[],
  index: number,
): Record<string, string> {
  const bindings: Record<string, string> = {};
  const names = new Set(inputs.map((i) => i.parameter.name));
  for (const slot of shape.slots) {
    const input = inputs.find(
      (p) =>
        (isBindable(p.value) || Array.isArray(p.value)) &&
        canonicalJson(p.value) === canonicalJson(slot.value),
    );
    if (input !== undefined) {
      bindings[slot.path] = `inputs.${input.parameter.name}`;
      continue;
    }
    if (!SIZING_KEYS.has(lastSegment(slot.path)) && bindToResult(slot, earlier, ids, bindings)) {
      continue;
    }
    let name = slot.name;
    for (let n = 2; names.has(name); n++) name = `${slot.name}_${n}`;
    names.add(name);
    inputs.push({
      path: slot.path,
      value: slot.value,
      parameter: {
        name,
        type: slot.type === 'null' ? 'string' : slot.type,
        description: `Value for ${slot.name} (${ids[index]} ${slot.path}).`,
        required: true,
        source: '',
      },
    });
    bindings[slot.path] = `inputs.${name}`;
  }
  return bindings;
}

/** Binds a slot (or each item of a list slot) found in an earlier step's result; true when all were. */
function bindToResult(
  slot: Slot,
  earlier: RecordedCall[],
  ids: string[],
  bindings: Record<string, string>,
): boolean {
  const values = Array.isArray(slot.value)
    ? slot.value.map((v, k) => [pointerJoin(slot.path, k), v] as const)
    : [[slot.path, slot.value] as const];
  let all = values.length > 0;
  for (const [pointer, value] of values) {
    let bound = false;
    if (isBindable(value)) {
      for (let j = earlier.length - 1; j >= 0 && !bound; j--) {
        const found = findValue(earlier[j]!.result, value, '');
        if (found === undefined) continue;
        bindings[pointer] = `steps.${ids[j]}${found}`;
        bound = true;
      }
    }
    all &&= bound;
  }
  if (!all) for (const [pointer] of values) delete bindings[pointer];
  return all;
}

/** Values specific enough that finding one in a result means it came from there. */
function isBindable(value: JsonValue): boolean {
  if (typeof value === 'string') return value.length >= 2 && !REDACTED.test(value);
  return typeof value === 'number' && Number.isFinite(value);
}

/** JSON Pointer of the first occurrence of `value` (same type) in `data`, in document order. */
function findValue(data: JsonValue | undefined, value: JsonValue, at: string): string | undefined {
  if (data === undefined) return undefined;
  if (data === value) return at;
  if (data === null || typeof data !== 'object') return undefined;
  const entries: Array<[string | number, JsonValue]> = Array.isArray(data)
    ? data.map((item, i) => [i, item])
    : Object.entries(data);
  for (const [key, child] of entries) {
    const found = findValue(child, value, pointerJoin(at, key));
    if (found !== undefined) return found;
  }
  return undefined;
}

function* strings(value: JsonValue, path: string): Generator<[string, string]> {
  if (typeof value === 'string') yield [path, value];
  else if (Array.isArray(value)) {
    for (const [i, item] of value.entries()) yield* strings(item, pointerJoin(path, i));
  } else if (value !== null && typeof value === 'object') {
    for (const [key, child] of Object.entries(value)) yield* strings(child, pointerJoin(path, key));
  }
}

function lastSegment(pointer: string): string {
  return pointer.slice(pointer.lastIndexOf('/') + 1);
}

const VERBS: Record<string, string> = {
  search: 'Search',
  get: 'Get one record from',
  count: 'Count in',
  aggregate: 'Aggregate over',
  write: 'Write to',
};

function stepDescription(call: RecordedCall): string {
  const verb = call.operation !== undefined ? VERBS[call.operation] : undefined;
  return verb !== undefined && call.resource !== undefined
    ? `${verb} ${call.resource}.`
    : `Call ${call.tool}.`;
}

function instruction(step: SkillStep, call: RecordedCall, index: number): string {
  const bound = Object.entries(step.bindings).map(([pointer, source]) => `${pointer} ← ${source}`);
  const using = bound.length > 0 ? ` with ${bound.join(', ')}` : '';
  return `${index + 1}. ${step.id}: ${call.tool}${using}.`;
}

function describe(calls: RecordedCall[]): string {
  return `Runs ${calls.map((c) => c.tool).join(', then ')}, as a session that succeeded did.`;
}

function outputType(result: JsonValue | undefined): string {
  const type = result === undefined ? 'object' : jsonType(result);
  return type === 'null' ? 'object' : type;
}

/** `<first tool>_then_<last tool>` (or `…_then_<n>_more`), within a skill name's 63 characters. */
export function skillName(tools: string[]): string {
  const first = tools[0] ?? 'skill';
  const candidates = [
    tools.length === 2 ? `${first}_then_${tools[1]}` : `${first}_then_${tools.length - 1}_more`,
    `${first}_then_${tools.length - 1}_more`,
  ];
  const fitting = candidates.find((name) => name.length <= 63);
  return (fitting ?? first.slice(0, 52).replace(/_+$/, '') + `_${tools.length}_steps`).slice(0, 63);
}

function sortedSet(items: string[]): string[] {
  return [...new Set(items)].sort();
}
