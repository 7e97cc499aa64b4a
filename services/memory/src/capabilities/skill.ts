/**
 * What a skill is: a stable multi-step procedure — tool calls with literal arguments and
 * bindings (from the skill's inputs or earlier steps' results), the inputs it takes, the
 * outputs it produces, the resources and permissions it needs, what to do on failure, and a
 * plain-language description. Checked and screened before it is stored.
 */
import type { CapabilitySpec } from './capability-spec.js';
import { fitsType } from './saved-query.js';
import { setAt } from '../learning/shape.js';
import type {
  FailureAction,
  JsonObject,
  SkillContent,
  SkillParameter,
  SkillStep,
} from '../types.js';
import { TOOLS_EXPECTED } from '../requests/problems.js';
import type { Problems } from '../requests/problems.js';
import { JSON_TYPES, NAME, PARAMETER, TOOL } from '../requests/names.js';

const MAX_STEPS = 30;
const MAX_PARAMETERS = 30;
const MAX_CONTENT_BYTES = 64 * 1024;
const FAILURE_ACTIONS: readonly FailureAction[] = ['stop', 'retry', 'skip', 'ask_user'];
const PERMISSION = /^[a-z][a-z0-9_]{2,62}\.[a-z][a-z0-9_]{0,31}$/;
const STEP_SOURCE = /^steps\.([a-z][a-z0-9_]{0,62})((?:\/[^/]*)*)$/;
const INPUT_SOURCE = /^inputs\.([a-z][a-z0-9_]{0,62})$/;

export const skillSpec: CapabilitySpec<SkillContent> = {
  kind: 'skill',
  label: 'skill',
  check(content, problems) {
    problems
      .text('description', content.description, { max: 1000, required: true })
      .text('instructions', content.instructions, { max: 8000 })
      .text('failure_handling', content.failureHandling, { max: 1000 })
      .screen('description', content.description, TOOLS_EXPECTED)
      .screen('instructions', content.instructions, TOOLS_EXPECTED)
      .screen('failure_handling', content.failureHandling, TOOLS_EXPECTED);
    if (content.steps.length === 0 && content.instructions.trim() === '') {
      problems.add(
        'steps',
        'a skill needs steps or instructions',
        'at least one step, or instructions',
      );
    }
    const bytes = Buffer.byteLength(JSON.stringify(content));
    if (bytes > MAX_CONTENT_BYTES) {
      problems.add(
        'steps',
        'the skill is too large',
        `at most ${MAX_CONTENT_BYTES} bytes of JSON`,
        `${bytes}`,
      );
    }
    content.tools.forEach((tool, i) => problems.match(`tools[${i}]`, tool, TOOL, 'a tool name'));
    content.resources.forEach((r, i) =>
      problems.match(`resources[${i}]`, r, NAME, 'a resource name'),
    );
    content.permissions.forEach((p, i) =>
      problems.match(
        `permissions[${i}]`,
        p,
        PERMISSION,
        '<resource>.<action>, e.g. es_orders.search',
      ),
    );
    checkParameters('inputs', content.inputs, problems, () => undefined);
    const stepIds = checkSteps(content, problems);
    checkParameters('outputs', content.outputs, problems, (output, at) => {
      const match = STEP_SOURCE.exec(output.source);
      if (match === null || !stepIds.has(match[1] ?? '')) {
        return `${at}.source must name a step: steps.<id> and a JSON Pointer into its result`;
      }
      return undefined;
    });
  },
  toJson(content) {
    return JSON.parse(JSON.stringify(content)) as JsonObject;
  },
  fromJson(json) {
    const text = (key: string): string => String(json[key] ?? '');
    const list = (key: string): string[] => ((json[key] ?? []) as unknown[]).map(String);
    const objects = (key: string): JsonObject[] => (json[key] ?? []) as JsonObject[];
    return {
      description: text('description'),
      instructions: text('instructions'),
      tools: list('tools'),
      steps: objects('steps').map((s): SkillStep => ({
        id: String(s['id'] ?? ''),
        tool: String(s['tool'] ?? ''),
        arguments: (s['arguments'] ?? {}) as JsonObject,
        bindings: (s['bindings'] ?? {}) as Record<string, string>,
        description: String(s['description'] ?? ''),
        onFailure: String(s['onFailure'] ?? 'stop') as FailureAction,
      })),
      inputs: objects('inputs').map(parameterFromJson),
      outputs: objects('outputs').map(parameterFromJson),
      resources: list('resources'),
      permissions: list('permissions'),
      failureHandling: text('failureHandling'),
    };
  },
};

function parameterFromJson(p: JsonObject): SkillParameter {
  return {
    name: String(p['name'] ?? ''),
    type: String(p['type'] ?? ''),
    description: String(p['description'] ?? ''),
    required: p['required'] === true,
    source: String(p['source'] ?? ''),
  };
}

function checkSteps(content: SkillContent, problems: Problems): Set<string> {
  if (content.steps.length > MAX_STEPS) {
    problems.add('steps', 'too many steps', `at most ${MAX_STEPS}`, `${content.steps.length}`);
  }
  const inputs = new Set(content.inputs.map((i) => i.name));
  const earlier = new Set<string>();
  content.steps.forEach((step, i) => {
    const at = `steps[${i}]`;
    problems.match(`${at}.id`, step.id, PARAMETER, '[a-z][a-z0-9_]{0,62}');
    if (earlier.has(step.id)) problems.add(`${at}.id`, `step ${step.id} is declared twice`);
    problems.match(`${at}.tool`, step.tool, TOOL, 'a tool name');
    if (!content.tools.includes(step.tool)) {
      problems.add(
        `${at}.tool`,
        `${at}.tool ${step.tool} is not among the skill's tools`,
        content.tools.join(', '),
      );
    }
    if (!FAILURE_ACTIONS.includes(step.onFailure)) {
      problems.add(
        `${at}.on_failure`,
        `${at}.on_failure is not an action`,
        FAILURE_ACTIONS.join(', '),
      );
    }
    problems
      .screen(`${at}.arguments`, step.arguments, TOOLS_EXPECTED)
      .text(`${at}.description`, step.description, { max: 500 })
      .screen(`${at}.description`, step.description, TOOLS_EXPECTED);
    for (const [pointer, source] of Object.entries(step.bindings)) {
      const where = `${at}.bindings[${JSON.stringify(pointer)}]`;
      if (!/^(?:\/[^/]*)+$/.test(pointer))
        problems.add(where, `${where}: the key must be a JSON Pointer into the arguments`);
      const input = INPUT_SOURCE.exec(source);
      const fromStep = STEP_SOURCE.exec(source);
      if (input !== null && !inputs.has(input[1] ?? '')) {
        problems.add(where, `${where} names input ${input[1]}, which the skill does not declare`);
      } else if (fromStep !== null && !earlier.has(fromStep[1] ?? '')) {
        problems.add(where, `${where} names step ${fromStep[1]}, which does not come before it`);
      } else if (input === null && fromStep === null) {
        problems.add(
          where,
          `${where} is not a binding source`,
          'inputs.<name> or steps.<id>/<pointer>',
        );
      }
    }
    earlier.add(step.id);
  });
  return earlier;
}

function checkParameters(
  field: 'inputs' | 'outputs',
  parameters: SkillParameter[],
  problems: Problems,
  checkSource: (p: SkillParameter, at: string) => string | undefined,
): void {
  if (parameters.length > MAX_PARAMETERS) {
    problems.add(field, `too many ${field}`, `at most ${MAX_PARAMETERS}`, `${parameters.length}`);
  }
  const names = new Set<string>();
  parameters.forEach((parameter, i) => {
    const at = `${field}[${i}]`;
    problems.match(`${at}.name`, parameter.name, PARAMETER, '[a-z][a-z0-9_]{0,62}');
    if (names.has(parameter.name))
      problems.add(`${at}.name`, `${field} ${parameter.name} is declared twice`);
    names.add(parameter.name);
    if (!(JSON_TYPES as readonly string[]).includes(parameter.type)) {
      problems.add(
        `${at}.type`,
        `${at}.type is not a JSON type`,
        JSON_TYPES.join(', '),
        parameter.type,
      );
    }
    problems
      .text(`${at}.description`, parameter.description, { max: 300 })
      .screen(`${at}.description`, parameter.description, TOOLS_EXPECTED);
    const sourceProblem = checkSource(parameter, at);
    if (sourceProblem !== undefined) problems.add(`${at}.source`, sourceProblem);
    if (field === 'inputs' && parameter.source !== '')
      problems.add(`${at}.source`, 'inputs take no source');
  });
}

/**
 * The skill with the inputs a reviewer fixed (`fixed`: input name → value): every step argument
 * bound to such an input gets the value as a literal, and the input is gone. Problems as for
 * saved queries, under `fixed.<name>`.
 */
export function fixSkillInputs(
  content: SkillContent,
  fixed: JsonObject,
  problems: Problems,
): SkillContent {
  const names = new Set(Object.keys(fixed));
  for (const name of names) {
    const input = content.inputs.find((i) => i.name === name);
    if (input === undefined) {
      problems.add(
        `fixed.${name}`,
        `${name} is not an input of this skill`,
        content.inputs.map((i) => i.name).join(', ') || '(none)',
      );
    } else if (!fitsType(fixed[name] ?? null, input.type)) {
      problems.add(`fixed.${name}`, `fixed.${name} is not of the input's type`, input.type);
    }
  }
  problems.screen('fixed', fixed);
  const steps = content.steps.map((step) => {
    const args = structuredClone(step.arguments);
    const bindings: Record<string, string> = {};
    for (const [pointer, source] of Object.entries(step.bindings)) {
      const input = /^inputs\.([a-z][a-z0-9_]{0,62})$/.exec(source)?.[1];
      if (input !== undefined && names.has(input)) setAt(args, pointer, fixed[input] ?? null);
      else bindings[pointer] = source;
    }
    return { ...step, arguments: args, bindings };
  });
  return { ...content, steps, inputs: content.inputs.filter((i) => !names.has(i.name)) };
}
