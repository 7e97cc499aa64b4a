/**
 * Skills a person approved, brought back into a new session: each becomes one function the
 * model may call (`skill_<name>`), whose only arguments are the skill's inputs. Calling it runs
 * the reviewed procedure step by step through the principal's own governed tools — every step
 * is decided, executed and audited like any call the model makes itself — with the values
 * bound exactly as the reviewer saw them. The model never sees or changes the steps; it fills
 * in a typed, closed set of inputs.
 */
import type { JsonObject, JsonValue } from '@bufbuild/protobuf';
import { ErrorCodes, findInjection, setAtPointer, valueAtPointer } from '@tollgate/core';
import type { ErrorCategory, ErrorCode } from '@tollgate/core';
import { RevisionStatus, SkillFailureAction } from '@tollgate/contracts/memory/v1';
import type { Skill } from '@tollgate/contracts/memory/v1';
import type { ChatCompletionFunctionTool } from 'openai/resources/chat/completions';
import type { Tool } from '../tools.js';

/** Function names of recalled skills start with this; nothing else the loop offers does. */
export const SKILL_FUNCTION_PREFIX = 'skill_';
/** A skill's description is cut to this many characters in the function's description. */
export const MAX_SKILL_DESCRIPTION = 300;

export type SkillInputType = 'string' | 'number' | 'integer' | 'boolean' | 'array' | 'object';
export type SkillFailure = 'stop' | 'retry' | 'skip' | 'ask_user';

/** An approved skill as the agent loop runs it. */
export interface RecalledSkill {
  id: string;
  name: string;
  revision: number;
  /** The function the model is offered. */
  functionName: string;
  description: string;
  /** Who approved this revision. */
  approvedBy: string;
  score: number;
  tools: string[];
  inputs: { name: string; type: SkillInputType; description: string; required: boolean }[];
  steps: {
    id: string;
    tool: string;
    arguments: JsonObject;
    bindings: Record<string, string>;
    onFailure: SkillFailure;
  }[];
  outputs: { name: string; source: string }[];
}

/** How one step of a skill went: the outcome's status, and its data when it succeeded. */
export interface SkillStepOutcome {
  status: 'ok' | 'error' | 'pending_approval' | 'accepted';
  /** The result data the step returned (as the model would read it), when `ok`. */
  data?: JsonValue;
  /** The stable error code and category, when `error`. */
  error?: { code: string; category: string; message: string };
}

/** Runs one step: a call of an offered tool with the arguments the procedure built. */
export type SkillStepRunner = (
  step: { id: string; tool: string },
  args: JsonObject,
) => Promise<SkillStepOutcome>;

const NAME = /^[a-z][a-z0-9_]{0,63}$/;
const TOOL = /^[a-z][a-z0-9_]{0,63}$/;
const INPUT_SOURCE = /^inputs\.([a-z][a-z0-9_]{0,62})$/;
const STEP_SOURCE = /^steps\.([a-z][a-z0-9_]{0,62})((?:\/[^/]*)*)$/;
const TYPES: readonly SkillInputType[] = [
  'string',
  'number',
  'integer',
  'boolean',
  'array',
  'object',
];
const FAILURES: Record<number, SkillFailure> = {
  [SkillFailureAction.UNSPECIFIED]: 'stop',
  [SkillFailureAction.STOP]: 'stop',
  [SkillFailureAction.RETRY]: 'retry',
  [SkillFailureAction.SKIP]: 'skip',
  [SkillFailureAction.ASK_USER]: 'ask_user',
};

/**
 * The skill as the loop may run it, or undefined when it must not reach a model: not an
 * approved revision, or anything in it without its expected shape (a step naming a tool the
 * skill does not list, a binding that reads from a later step or an unknown input, a
 * description — the skill's or an input's — that the instruction screen flags).
 */
export function recalledSkill(skill: Skill, score: number): RecalledSkill | undefined {
  if (skill.status !== RevisionStatus.APPROVED || skill.decidedBy === '') return undefined;
  if (!NAME.test(skill.name) || skill.steps.length === 0) return undefined;
  if (!skill.tools.every((t) => TOOL.test(t))) return undefined;
  const description = skill.description.replace(/\s+/g, ' ').trim();
  if (description === '' || findInjection(description, { allowToolNames: true })) return undefined;
  const inputs: RecalledSkill['inputs'] = [];
  for (const input of skill.inputs) {
    const type = input.type as SkillInputType;
    if (!NAME.test(input.name) || !TYPES.includes(type)) return undefined;
    // An input's description reaches the model in the function's schema, like the skill's own.
    if (findInjection(input.description, { allowToolNames: true })) return undefined;
    if (inputs.some((i) => i.name === input.name)) return undefined;
    inputs.push({
      name: input.name,
      type,
      description: input.description.slice(0, 200),
      required: input.required,
    });
  }
  const earlier = new Set<string>();
  const steps: RecalledSkill['steps'] = [];
  for (const step of skill.steps) {
    if (!NAME.test(step.id) || earlier.has(step.id) || !skill.tools.includes(step.tool))
      return undefined;
    for (const [pointer, source] of Object.entries(step.bindings)) {
      if (!pointer.startsWith('/') || !bindable(source, inputs, earlier)) return undefined;
    }
    steps.push({
      id: step.id,
      tool: step.tool,
      arguments: structuredClone(step.arguments ?? {}),
      bindings: { ...step.bindings },
      onFailure: FAILURES[step.onFailure] ?? 'stop',
    });
    earlier.add(step.id);
  }
  const outputs = skill.outputs.map((o) => ({ name: o.name, source: o.source }));
  if (!outputs.every((o) => NAME.test(o.name) && bindable(o.source, [], earlier))) return undefined;
  const shown =
    description.length > MAX_SKILL_DESCRIPTION
      ? `${description.slice(0, MAX_SKILL_DESCRIPTION)}…`
      : description;
  return {
    id: skill.id,
    name: skill.name,
    revision: skill.revision,
    functionName: `${SKILL_FUNCTION_PREFIX}${skill.name}`.slice(0, 64),
    description: shown,
    approvedBy: skill.decidedBy,
    score,
    tools: [...skill.tools],
    inputs,
    steps,
    outputs,
  };
}

function bindable(
  source: string,
  inputs: readonly { name: string }[],
  earlier: ReadonlySet<string>,
): boolean {
  const input = INPUT_SOURCE.exec(source);
  if (input) return inputs.some((i) => i.name === input[1]);
  const step = STEP_SOURCE.exec(source);
  return step !== null && earlier.has(step[1] ?? '');
}

/**
 * The skills the loop offers in a run: those whose every step uses a tool the principal is
 * offered now (a skill outlives a permission it was built on; then it is not offered, and
 * the executor would refuse the step anyway), one per function name.
 */
export function offerableSkills(
  skills: readonly RecalledSkill[],
  offered: ReadonlyMap<string, Tool>,
): RecalledSkill[] {
  const names = new Set<string>();
  return skills.filter((skill) => {
    if (names.has(skill.functionName) || offered.has(skill.functionName)) return false;
    if (!skill.steps.every((s) => offered.has(s.tool))) return false;
    names.add(skill.functionName);
    return true;
  });
}

/** The function the model is offered for a skill: the skill's inputs, closed. */
export function skillFunction(skill: RecalledSkill): ChatCompletionFunctionTool {
  const properties: JsonObject = {};
  for (const input of skill.inputs) {
    properties[input.name] = {
      ...inputSchema(input.type),
      ...(input.description ? { description: input.description } : {}),
    };
  }
  const tools = [...new Set(skill.steps.map((s) => s.tool))].join(', ');
  return {
    type: 'function',
    function: {
      name: skill.functionName,
      description: `Reviewed procedure (approved by ${skill.approvedBy}): ${skill.description} It runs ${skill.steps.length} step(s) with ${tools}; give only its inputs.`,
      parameters: {
        type: 'object',
        properties,
        required: skill.inputs.filter((i) => i.required).map((i) => i.name),
        additionalProperties: false,
      },
    },
  };
}

function inputSchema(type: SkillInputType): JsonObject {
  if (type === 'array') return { type: 'array', items: { type: ['string', 'number', 'boolean'] } };
  return { type };
}

/** What a skill run tells the model, and each step's outcome for the run's record. */
export interface SkillRun {
  content: JsonObject;
  steps: { id: string; tool: string; status: SkillStepOutcome['status'] | 'skipped' }[];
  /** Why the run failed, when it did (the code of the failed step, or of the inputs). */
  error?: { code: ErrorCode; category: ErrorCategory; message: string };
}

/**
 * Runs a skill: checks the inputs against the skill's (closed, typed, required ones present),
 * then each step in order with its literal arguments and its bindings filled from the inputs
 * and earlier steps' results. A failed step does what the reviewer approved (`stop`, `retry`
 * once when the error is retryable, `skip`, `ask_user`); a step parked for approval or accepted
 * ends the run there, reported as it is.
 */
export async function runSkill(
  skill: RecalledSkill,
  args: JsonValue,
  runStep: SkillStepRunner,
): Promise<SkillRun> {
  const problems = inputProblems(skill, args);
  if (problems.length > 0) {
    return failure(
      [],
      'ARGUMENTS_INVALID',
      `the inputs of ${skill.functionName} are not valid`,
      problems,
    );
  }
  const inputs = args as JsonObject;
  const results = new Map<string, JsonValue>();
  const done: SkillRun['steps'] = [];
  for (const step of skill.steps) {
    const built = structuredClone(step.arguments);
    let missing: string | undefined;
    for (const [pointer, source] of Object.entries(step.bindings)) {
      const value = boundValue(source, inputs, results);
      if (value === undefined) {
        missing = `${pointer} takes ${source}, which is not there`;
        break;
      }
      if (!setAtPointer(built, pointer, value)) {
        missing = `${pointer} is not a place in the step's arguments`;
        break;
      }
    }
    if (missing !== undefined) {
      if (step.onFailure === 'skip') {
        done.push({ id: step.id, tool: step.tool, status: 'skipped' });
        continue;
      }
      return failure(
        done,
        'FAILED_PRECONDITION',
        `step ${step.id} could not be built: ${missing}; ${skill.functionName} stopped there`,
      );
    }
    let outcome = await runStep({ id: step.id, tool: step.tool }, built);
    if (
      outcome.status === 'error' &&
      step.onFailure === 'retry' &&
      outcome.error?.category === 'retryable'
    )
      outcome = await runStep({ id: step.id, tool: step.tool }, built);
    done.push({ id: step.id, tool: step.tool, status: outcome.status });
    if (outcome.status === 'ok') {
      results.set(step.id, outcome.data ?? null);
      continue;
    }
    if (outcome.status === 'error' && step.onFailure === 'skip') continue;
    if (outcome.status !== 'error') {
      return {
        content: {
          status: outcome.status,
          skill: skill.functionName,
          message: `step ${step.id} (${step.tool}) is ${outcome.status === 'pending_approval' ? 'waiting for approval by a person' : 'running'}; the procedure stops here`,
          steps: done,
        },
        steps: done,
      };
    }
    const code = knownCode(outcome.error?.code);
    const why = `step ${step.id} (${step.tool}) failed: ${code}: ${outcome.error?.message ?? ''}`;
    return failure(
      done,
      code,
      step.onFailure === 'ask_user'
        ? `${why}; ask the user how to go on`
        : `${why}; ${skill.functionName} stopped there`,
    );
  }
  const outputs: JsonObject = {};
  for (const output of skill.outputs) {
    const value = boundValue(output.source, inputs, results);
    if (value !== undefined) outputs[output.name] = value;
  }
  return {
    content: { status: 'ok', skill: skill.functionName, outputs, steps: done },
    steps: done,
  };
}

function failure(
  steps: SkillRun['steps'],
  code: ErrorCode,
  message: string,
  details?: InputProblem[],
): SkillRun {
  const category = ErrorCodes[code];
  return {
    content: {
      status: 'error',
      code,
      category,
      message,
      ...(details ? { details } : {}),
      steps,
    },
    steps,
    error: { code, category, message },
  };
}

function knownCode(code: string | undefined): ErrorCode {
  return code !== undefined && Object.hasOwn(ErrorCodes, code) ? (code as ErrorCode) : 'INTERNAL';
}

function boundValue(
  source: string,
  inputs: JsonObject,
  results: ReadonlyMap<string, JsonValue>,
): JsonValue | undefined {
  const input = INPUT_SOURCE.exec(source);
  if (input) return Object.hasOwn(inputs, input[1]!) ? inputs[input[1]!] : undefined;
  const step = STEP_SOURCE.exec(source);
  if (step === null || !results.has(step[1]!)) return undefined;
  return valueAtPointer(results.get(step[1]!)!, step[2] ?? '');
}

interface InputProblem extends JsonObject {
  path: string;
  message: string;
  expected: string;
}

function inputProblems(skill: RecalledSkill, args: JsonValue): InputProblem[] {
  if (typeof args !== 'object' || args === null || Array.isArray(args))
    return [{ path: '', message: 'the inputs must be a JSON object', expected: 'object' }];
  const problems: InputProblem[] = [];
  const known = new Map(skill.inputs.map((i) => [i.name, i]));
  for (const key of Object.keys(args)) {
    if (!known.has(key))
      problems.push({
        path: `/${key}`,
        message: `${key} is not an input of ${skill.functionName}`,
        expected: [...known.keys()].join(', ') || '(no inputs)',
      });
  }
  for (const input of skill.inputs) {
    const value = Object.hasOwn(args, input.name) ? args[input.name] : undefined;
    if (value === undefined || value === null) {
      if (input.required)
        problems.push({
          path: `/${input.name}`,
          message: `${input.name} is required`,
          expected: input.type,
        });
      continue;
    }
    if (!fits(input.type, value))
      problems.push({
        path: `/${input.name}`,
        message: `${input.name} must be ${input.type === 'array' || input.type === 'integer' ? 'an' : 'a'} ${input.type}`,
        expected: input.type,
      });
  }
  return problems;
}

function fits(type: SkillInputType, value: JsonValue): boolean {
  switch (type) {
    case 'string':
      return typeof value === 'string';
    case 'number':
      return typeof value === 'number' && Number.isFinite(value);
    case 'integer':
      return typeof value === 'number' && Number.isInteger(value);
    case 'boolean':
      return typeof value === 'boolean';
    case 'array':
      return Array.isArray(value);
    case 'object':
      return typeof value === 'object' && !Array.isArray(value);
  }
}
