/**
 * Rules of an mcp resource beyond its schema: one way to connect, credential references in
 * the server's environment, pins that match their definitions, no flagged description without
 * a recorded override, distinct operation names, fixed values and fields that name real
 * arguments.
 */
import {
  asRecord,
  checkCredentialRef,
  checkEndpoint,
  isOperationName,
  joinPath,
  problem,
} from '@tollgate/core';
import type { DescriptorProblem } from '@tollgate/core';
import { pinOf } from './pin.js';
import { screenDescription } from './screen.js';
import { operationOf } from './spec.js';
import type { McpTool, McpToolDefinition } from './spec.js';

export function mcpRules(descriptor: unknown): DescriptorProblem[] {
  const spec = asRecord(asRecord(descriptor)?.spec);
  const connection = asRecord(spec?.connection);
  const problems: Array<DescriptorProblem | undefined> = [];
  const hasCommand = connection?.command !== undefined;
  const hasUrl = connection?.url !== undefined;
  if (connection !== undefined && hasCommand === hasUrl) {
    problems.push(
      problem('spec.connection', 'needs exactly one of command (stdio) and url (Streamable HTTP)', {
        expected: 'command or url',
        found: hasCommand ? 'both' : 'neither',
      }),
    );
  }
  if (typeof connection?.url === 'string') {
    problems.push(checkEndpoint('spec.connection.url', connection.url));
  }
  if (hasCommand && connection?.credentialRef !== undefined) {
    problems.push(
      problem(
        'spec.connection.credentialRef',
        'is the bearer token of a url; a command takes its secrets through command.env',
        {
          expected: 'command.env',
          found: 'credentialRef with command',
        },
      ),
    );
  }
  problems.push(...oauthProblems(connection));
  const env = asRecord(asRecord(connection?.command)?.env) ?? {};
  for (const [name, ref] of Object.entries(env)) {
    if (typeof ref === 'string') {
      problems.push(checkCredentialRef(joinPath('spec.connection.command.env', name), ref));
    }
  }
  const tools = asRecord(spec?.tools) ?? {};
  const seen = new Map<string, string>();
  const names = Object.keys(tools);
  for (const [upstream, raw] of Object.entries(tools)) {
    const tool = asRecord(raw) as Partial<McpTool> | undefined;
    if (tool === undefined) continue;
    const at = joinPath('spec.tools', upstream);
    const operation = operationOf(upstream, tool);
    if (!isOperationName(operation)) {
      problems.push(
        problem(joinPath(at, 'operation'), `"${operation}" cannot name an operation`, {
          expected:
            'a lowercase name that is not read, change, destroy, view_field or filter_field',
          found: operation,
        }),
      );
    }
    const twin = seen.get(operation);
    if (twin !== undefined) {
      problems.push(
        problem(joinPath(at, 'operation'), `"${operation}" is also the operation of ${twin}`, {
          expected: 'one operation name per tool',
          found: operation,
        }),
      );
    }
    seen.set(operation, upstream);
    problems.push(...pinProblems(at, upstream, tool, names));
  }
  const fields = asRecord(asRecord(spec?.schema)?.fields) ?? {};
  const operations = new Map([...seen].map(([op, upstream]) => [op, asRecord(tools[upstream])]));
  for (const name of Object.keys(fields)) {
    const [op, argument] = splitField(name);
    const tool = operations.get(op ?? '') as Partial<McpTool> | undefined;
    const properties = asRecord(asRecord(tool?.definition)?.inputSchema)?.properties;
    if (tool === undefined || argument === undefined) {
      problems.push(
        problem(
          joinPath('spec.schema.fields', name),
          'must name <operation>.<argument> of a selected tool',
          {
            expected: `one of the operations ${[...seen.keys()].join(', ') || '(none)'}`,
            found: name,
          },
        ),
      );
    } else if (tool.definition !== undefined && asRecord(properties)?.[argument] === undefined) {
      problems.push(
        problem(joinPath('spec.schema.fields', name), `${op} has no argument "${argument}"`, {
          expected: Object.keys(asRecord(properties) ?? {}).join(', ') || '(no arguments)',
          found: argument,
        }),
      );
    }
  }
  return problems.filter((p) => p !== undefined);
}

/** OAuth client credentials: only for a url, not with a static token, to a real endpoint. */
function oauthProblems(
  connection: Record<string, unknown> | undefined,
): Array<DescriptorProblem | undefined> {
  const oauth = asRecord(connection?.oauth);
  if (oauth === undefined) return [];
  const at = 'spec.connection.oauth';
  const out: Array<DescriptorProblem | undefined> = [];
  if (connection?.url === undefined) {
    out.push(
      problem(
        at,
        'is how Tollgate signs in to a url; a command takes its secrets through command.env',
        {
          expected: 'url',
          found: 'oauth with command',
        },
      ),
    );
  }
  if (connection?.credentialRef !== undefined) {
    out.push(
      problem(at, 'and credentialRef are two ways to authenticate; name one', {
        expected: 'credentialRef or oauth',
        found: 'both',
      }),
    );
  }
  if (typeof oauth.tokenUrl === 'string')
    out.push(checkEndpoint(joinPath(at, 'tokenUrl'), oauth.tokenUrl));
  if (typeof oauth.clientSecretRef === 'string') {
    out.push(checkCredentialRef(joinPath(at, 'clientSecretRef'), oauth.clientSecretRef));
  }
  if (typeof oauth.resource === 'string' && !URL.canParse(oauth.resource)) {
    out.push(
      problem(joinPath(at, 'resource'), 'must be an absolute URI (RFC 8707)', {
        expected: 'an absolute URI such as https://mcp.internal/mcp',
        found: 'not a URI',
      }),
    );
  }
  return out;
}

function pinProblems(
  at: string,
  upstream: string,
  tool: Partial<McpTool>,
  names: readonly string[],
): DescriptorProblem[] {
  const out: DescriptorProblem[] = [];
  if ((tool.pin === undefined) !== (tool.definition === undefined)) {
    out.push(
      problem(at, 'pin and definition come together (confirmation writes both)', {
        expected: 'both or neither',
        found: tool.pin === undefined ? 'definition without pin' : 'pin without definition',
      }),
    );
    return out;
  }
  const definition = tool.definition as McpToolDefinition | undefined;
  if (definition === undefined || tool.pin === undefined) return out;
  if (pinOf(upstream, definition) !== tool.pin) {
    out.push(
      problem(joinPath(at, 'pin'), 'does not match the pinned definition', {
        expected: 'the sha256 of the definition',
        found: 'a different hash',
      }),
    );
  }
  const siblings = names.filter((n) => n !== upstream);
  const flagged =
    definition.description === undefined
      ? undefined
      : screenDescription(definition.description, siblings);
  if (flagged !== undefined && tool.override === undefined) {
    out.push(
      problem(
        joinPath(joinPath(at, 'definition'), 'description'),
        `was flagged by the screen (${flagged}); selecting it needs an override`,
        {
          expected: 'an override with reason and by, or leave the tool out',
          found: flagged,
        },
      ),
    );
  }
  const properties = asRecord(definition.inputSchema?.properties) ?? {};
  for (const name of Object.keys(asRecord(tool.fixed) ?? {})) {
    if (!Object.hasOwn(properties, name)) {
      out.push(
        problem(joinPath(joinPath(at, 'fixed'), name), 'is not an argument of the tool', {
          expected: Object.keys(properties).join(', ') || '(no arguments)',
          found: name,
        }),
      );
    }
  }
  return out;
}

function splitField(name: string): [string | undefined, string | undefined] {
  const dot = name.indexOf('.');
  return dot < 0 ? [name, undefined] : [name.slice(0, dot), name.slice(dot + 1)];
}
