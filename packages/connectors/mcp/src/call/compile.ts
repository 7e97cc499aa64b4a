/**
 * Compiling a call of an mcp tool: the arguments are checked again against the schema this
 * principal is offered (pinned input schema, narrowed, closed), then the operator's fixed
 * values are laid over them. Pure; nothing from the model names the upstream tool.
 */
import { TollgateError, canonicalHash, createStrictAjv } from '@tollgate/core';
import type { CompileContext, CompiledRequest, ErrorDetail, JsonSchema } from '@tollgate/core';
import { mcpSpec } from '../kind/spec.js';
import { argumentSchema, toolOf } from '../kind/tools.js';

const DEFAULT_TIMEOUT_MS = 5000;

/** The native request: which upstream tool, with which arguments, under which pin. */
export interface McpRequest {
  tool: string;
  arguments: Record<string, unknown>;
  pin: string;
}

type Check = ((value: unknown) => boolean) & {
  errors?: Array<{
    instancePath: string;
    message?: string;
    params?: Record<string, unknown>;
  }> | null;
};
const checks = new Map<string, Check>();
let ajv: ReturnType<typeof createStrictAjv> | undefined;

function checkFor(schema: JsonSchema): Check {
  const key = canonicalHash(schema);
  let check = checks.get(key);
  if (check === undefined) {
    ajv ??= createStrictAjv();
    check = ajv.compile(schema) as Check;
    ajv.removeSchema(schema);
    if (checks.size > 1000) checks.clear();
    checks.set(key, check);
  }
  return check;
}

export function compileRequest(
  operation: string,
  args: unknown,
  ctx: CompileContext,
): CompiledRequest<McpRequest> {
  const spec = mcpSpec(ctx.descriptor);
  const selected = toolOf(spec, operation);
  if (selected === undefined || selected.tool.pin === undefined) {
    throw new TollgateError(
      'UNKNOWN_TOOL',
      `${ctx.descriptor.metadata.name} has no pinned tool for operation ${operation}.`,
    );
  }
  const schema = argumentSchema(selected, spec, ctx.permissions);
  if (schema === undefined) {
    throw new TollgateError(
      'POLICY_DENIED',
      `This principal may not set the arguments ${operation} requires.`,
    );
  }
  const check = checkFor(schema);
  if (!check(args)) {
    const details: ErrorDetail[] = (check.errors ?? []).slice(0, 20).map((e) => ({
      path: e.instancePath === '' ? '(arguments)' : e.instancePath.slice(1).replaceAll('/', '.'),
      message:
        e.params?.additionalProperty !== undefined
          ? `unknown argument "${String(e.params.additionalProperty)}"`
          : (e.message ?? 'invalid'),
    }));
    throw new TollgateError(
      'ARGUMENTS_INVALID',
      `The arguments of ${operation} do not match its schema.`,
      { details },
    );
  }
  const given = args as Record<string, unknown>;
  return {
    kind: 'mcp',
    operation,
    resource: ctx.descriptor.metadata.name,
    timeoutMs: selected.tool.timeoutMs ?? spec.connection.timeoutMs ?? DEFAULT_TIMEOUT_MS,
    idempotent: selected.tool.class === 'read',
    fields: [],
    native: {
      tool: selected.upstream,
      arguments: { ...given, ...(selected.tool.fixed ?? {}) },
      pin: selected.tool.pin,
    },
  };
}
