/**
 * What a saved query is: a tool call with some values left open as named parameters. Checked
 * and screened before it is stored; the synthesizer offers approved ones as narrower tools.
 */
import type { CapabilitySpec } from './capability-spec.js';
import { jsonType, setAt } from '../learning/shape.js';
import type { JsonObject, JsonValue, SavedQueryContent, SavedQueryParameter } from '../types.js';
import { TOOLS_EXPECTED } from '../requests/problems.js';
import type { Problems } from '../requests/problems.js';
import { PARAMETER, SAVED_QUERY_NAME_MAX, TOOL } from '../requests/names.js';

const PARAMETER_TYPES = ['string', 'number', 'integer', 'boolean', 'array'];
const MAX_PARAMETERS = 20;
const MAX_ARGUMENT_BYTES = 16 * 1024;

export const savedQuerySpec: CapabilitySpec<SavedQueryContent> = {
  kind: 'saved_query',
  label: 'saved query',
  check(content, problems) {
    problems
      .text('description', content.description, { max: 1000 })
      .screen('description', content.description, TOOLS_EXPECTED)
      .match('tool', content.tool, TOOL, 'a tool name such as es_orders_search');
    if (Buffer.byteLength(JSON.stringify(content.arguments)) > MAX_ARGUMENT_BYTES) {
      problems.add(
        'arguments',
        'arguments are too large',
        `at most ${MAX_ARGUMENT_BYTES} bytes of JSON`,
      );
    }
    problems.screen('arguments', content.arguments, TOOLS_EXPECTED);
    checkParameters(content, problems);
  },
  checkName(name, problems) {
    checkSavedQueryName(name, problems);
  },
  toJson(content) {
    return {
      description: content.description,
      tool: content.tool,
      arguments: content.arguments,
      parameters: content.parameters.map((p) => ({ ...p })),
    };
  },
  fromJson(json) {
    return {
      description: String(json['description'] ?? ''),
      tool: String(json['tool'] ?? ''),
      arguments: (json['arguments'] ?? {}) as JsonObject,
      parameters: ((json['parameters'] ?? []) as JsonObject[]).map((p): SavedQueryParameter => ({
        name: String(p['name'] ?? ''),
        path: String(p['path'] ?? ''),
        type: String(p['type'] ?? ''),
        description: String(p['description'] ?? ''),
      })),
    };
  },
  indexKey: (content) => content.tool,
};

/** A saved query is offered as the tool `sq_<name>`, which must fit a tool name. */
export function checkSavedQueryName(name: string, problems: Problems): void {
  if (name.length > SAVED_QUERY_NAME_MAX) {
    problems.add(
      'name',
      'name is too long: a saved query is offered as the tool sq_<name>, at most 64 characters',
      `at most ${SAVED_QUERY_NAME_MAX} characters`,
      `${name.length} characters`,
    );
  }
}

function checkParameters(content: SavedQueryContent, problems: Problems): void {
  if (content.parameters.length > MAX_PARAMETERS) {
    problems.add(
      'parameters',
      'too many parameters',
      `at most ${MAX_PARAMETERS}`,
      `${content.parameters.length}`,
    );
  }
  const names = new Set<string>();
  const paths = new Set<string>();
  const probe = structuredClone(content.arguments);
  content.parameters.forEach((parameter, i) => {
    const at = `parameters[${i}]`;
    problems.match(`${at}.name`, parameter.name, PARAMETER, '[a-z][a-z0-9_]{0,62}');
    if (names.has(parameter.name))
      problems.add(`${at}.name`, `parameter ${parameter.name} is declared twice`);
    names.add(parameter.name);
    if (!PARAMETER_TYPES.includes(parameter.type)) {
      problems.add(
        `${at}.type`,
        `${at}.type is not a parameter type`,
        PARAMETER_TYPES.join(', '),
        parameter.type,
      );
    }
    if (!/^(?:\/[^/]*)+$/.test(parameter.path) || !setAt(probe, parameter.path, null)) {
      problems.add(
        `${at}.path`,
        `${at}.path does not point into the arguments`,
        'a JSON Pointer whose parent exists in arguments',
      );
    } else if (paths.has(parameter.path)) {
      problems.add(`${at}.path`, `two parameters fill ${parameter.path}`);
    }
    paths.add(parameter.path);
    problems
      .text(`${at}.description`, parameter.description, { max: 300 })
      .screen(`${at}.description`, parameter.description, TOOLS_EXPECTED);
  });
}

/**
 * The saved query with the parameters a reviewer fixed (`fixed`: parameter name → value)
 * written into its arguments as constants. A name that is no parameter, a value of another
 * type, or a value the screen refuses is a problem under `fixed.<name>`.
 */
export function fixSavedQueryParameters(
  content: SavedQueryContent,
  fixed: JsonObject,
  problems: Problems,
): SavedQueryContent {
  const args = structuredClone(content.arguments);
  const parameters = content.parameters.filter((parameter) => {
    if (!Object.hasOwn(fixed, parameter.name)) return true;
    const value = fixed[parameter.name] ?? null;
    if (!fitsType(value, parameter.type)) {
      problems.add(
        `fixed.${parameter.name}`,
        `fixed.${parameter.name} is not of the parameter's type`,
        parameter.type,
        jsonType(value),
      );
    }
    setAt(args, parameter.path, value);
    return false;
  });
  for (const name of Object.keys(fixed)) {
    if (!content.parameters.some((p) => p.name === name)) {
      problems.add(
        `fixed.${name}`,
        `${name} is not a parameter of this saved query`,
        content.parameters.map((p) => p.name).join(', ') || '(none)',
      );
    }
  }
  problems.screen('fixed', fixed);
  return { ...content, arguments: args, parameters };
}

/** Whether `value` may stand for a parameter (or input) of JSON type `type`. */
export function fitsType(value: JsonValue, type: string): boolean {
  const actual = jsonType(value);
  return actual === type || (type === 'number' && actual === 'integer');
}
