/**
 * Discovery of an mcp resource: the upstream's `tools/list` (and its server info). Every
 * listed tool is reported with its definition, the hash it would be pinned by, and what the
 * screen found in its description; a selected tool whose pin no longer matches is reported
 * with the change. `discoverSchema` puts the same into core's discovered-schema shape (one
 * argument field per input property, so declared fields merge), `pinTools` writes the pins
 * a confirmation records.
 */
import { descriptorInvalid, noCapabilities, problem } from '@tollgate/core';
import type {
  CredentialResolver,
  DiscoveredField,
  DiscoveredSchema,
  DiscoveryWarning,
} from '@tollgate/core';
import { definitionOf, diffDefinitions, pinOf } from '../kind/pin.js';
import type { DefinitionChange, ListedTool } from '../kind/pin.js';
import { screenDescription } from '../kind/screen.js';
import { operationOf } from '../kind/spec.js';
import type { McpSpec, McpTool, McpToolDefinition } from '../kind/spec.js';
import { connect } from './session.js';

/** One upstream tool as discovery reports it. */
export interface DiscoveredTool {
  name: string;
  operation: string;
  definition: McpToolDefinition;
  pin: string;
  /** Why the screen flagged the description; selecting the tool then needs an override. */
  flagged?: string;
  /** Selected in the spec. */
  selected: boolean;
  /** Selected and pinned, and the live definition differs: what changed. */
  changed?: DefinitionChange[];
  /** The upstream's hints (never trusted to loosen the operator's class). */
  hints: { readOnly?: boolean; destructive?: boolean; idempotent?: boolean; openWorld?: boolean };
}

/** What discovery read from the server. */
export interface DiscoveredTools {
  server: { name: string; version: string };
  tools: DiscoveredTool[];
  /** Selected tools the server no longer lists. */
  missing: string[];
}

/** Connects, lists the tools and closes again. */
export async function discoverTools(
  spec: McpSpec,
  credentials: CredentialResolver,
): Promise<DiscoveredTools> {
  const { client } = await connect(spec, 'discovery', credentials);
  try {
    const listed = (
      await client.listTools(undefined, {
        cacheMode: 'bypass',
        timeout: spec.connection.timeoutMs ?? 5000,
      })
    ).tools as ListedTool[];
    const info = client.getServerVersion();
    return readTools(spec, listed, {
      name: info?.name ?? 'unknown',
      version: info?.version ?? 'unknown',
    });
  } finally {
    await client.close().catch(() => undefined);
  }
}

/** The report for a listing (pure; discovery and tests share it). */
export function readTools(
  spec: McpSpec,
  listed: readonly ListedTool[],
  server: DiscoveredTools['server'],
): DiscoveredTools {
  const names = listed.map((tool) => tool.name);
  const tools = [...listed]
    .sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))
    .map((tool): DiscoveredTool => {
      const definition = definitionOf(tool);
      const declared: McpTool | undefined = spec.tools?.[tool.name];
      const pin = pinOf(tool.name, definition);
      const flagged =
        tool.description === undefined
          ? undefined
          : screenDescription(
              tool.description,
              names.filter((n) => n !== tool.name),
            );
      const a = tool.annotations ?? {};
      const out: DiscoveredTool = {
        name: tool.name,
        operation: operationOf(tool.name, declared ?? {}),
        definition,
        pin,
        selected: declared !== undefined,
        hints: {
          ...(typeof a.readOnlyHint === 'boolean' ? { readOnly: a.readOnlyHint } : {}),
          ...(typeof a.destructiveHint === 'boolean' ? { destructive: a.destructiveHint } : {}),
          ...(typeof a.idempotentHint === 'boolean' ? { idempotent: a.idempotentHint } : {}),
          ...(typeof a.openWorldHint === 'boolean' ? { openWorld: a.openWorldHint } : {}),
        },
      };
      if (flagged !== undefined) out.flagged = flagged;
      if (
        declared?.pin !== undefined &&
        declared.definition !== undefined &&
        declared.pin !== pin
      ) {
        out.changed = diffDefinitions(declared.definition, definition);
      }
      return out;
    });
  const missing = Object.keys(spec.tools ?? {})
    .filter((name) => !names.includes(name))
    .sort();
  return { server, tools, missing };
}

/**
 * The spec with every selected tool that has no pin yet pinned to its discovered definition.
 * Pinned tools keep their pin: a changed definition is only taken with `repin` naming it.
 */
export function pinTools(
  spec: McpSpec,
  discovered: DiscoveredTools,
  repin: readonly string[] = [],
): McpSpec {
  const byName = new Map(discovered.tools.map((tool) => [tool.name, tool]));
  const tools: Record<string, McpTool> = {};
  for (const [name, tool] of Object.entries(spec.tools)) {
    const live = byName.get(name);
    if (live === undefined || (tool.pin !== undefined && !repin.includes(name))) {
      tools[name] = tool;
      continue;
    }
    tools[name] = { ...tool, pin: live.pin, definition: live.definition };
  }
  return { ...spec, tools };
}

/**
 * `Connector.pinOnConfirm`: every selected tool without a pin pinned to its live definition,
 * or undefined — without connecting — when every selected tool is pinned already (a changed
 * definition is taken only by `pinTools` with `repin`). A selected tool the server does not
 * list cannot be pinned: the version is refused, naming it.
 */
export async function pinSelected(
  spec: McpSpec,
  credentials: CredentialResolver,
): Promise<McpSpec | undefined> {
  const unpinned = Object.keys(spec.tools).filter((name) => spec.tools[name]?.pin === undefined);
  if (unpinned.length === 0) return undefined;
  const discovered = await discoverTools(spec, credentials);
  const listed = new Set(discovered.tools.map((tool) => tool.name));
  const absent = unpinned.filter((name) => !listed.has(name)).sort();
  if (absent.length > 0) {
    throw descriptorInvalid(
      absent.map((name) =>
        problem(`spec.tools.${name}`, 'is selected but the server does not list it', {
          expected: `one of ${[...listed].sort().join(', ') || '(no tools)'}`.slice(0, 200),
          found: name,
        }),
      ),
    );
  }
  return pinTools(spec, discovered);
}

/** The discovery report in core's shape, for `tollgate discover` and drafts. */
export function toDiscoveredSchema(spec: McpSpec, discovered: DiscoveredTools): DiscoveredSchema {
  const fields: DiscoveredField[] = [];
  const warnings: DiscoveryWarning[] = [];
  for (const tool of discovered.tools) {
    if (tool.flagged !== undefined) {
      warnings.push({
        code: 'description_flagged',
        message: `Tool ${tool.name}: its description was flagged (${tool.flagged}); it cannot be selected without an override.`,
      });
    }
    for (const change of tool.changed ?? []) {
      warnings.push({
        code: 'definition_changed',
        message: `Tool ${tool.name} changed since it was pinned (${change.part}): pinned ${quoted(change.pinned)} → now ${quoted(change.live)}; it is withdrawn until a new version pins it.`,
      });
    }
    if (!tool.selected) continue;
    const properties = (tool.definition.inputSchema.properties ?? {}) as Record<
      string,
      { type?: unknown; description?: unknown }
    >;
    for (const [argument, schema] of Object.entries(properties)) {
      fields.push({
        path: `${tool.operation}.${argument}`,
        type: 'argument',
        nativeType: typeof schema?.type === 'string' ? schema.type : 'any',
        supported: { ...noCapabilities(), filterable: true },
        suggested: { ...noCapabilities(), filterable: true },
        family: 'argument',
        ...(typeof schema?.description === 'string'
          ? { notes: [schema.description.slice(0, 200)] }
          : {}),
      });
    }
  }
  for (const name of discovered.missing) {
    warnings.push({
      code: 'tool_missing',
      message: `Tool ${name} is selected but the server no longer lists it.`,
    });
  }
  fields.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
  return {
    target: `${discovered.server.name} ${discovered.server.version}`,
    sources: discovered.tools.map((tool) => ({ name: tool.name, objectType: 'tool' })),
    fields,
    conflicts: [],
    warnings,
    sourceNoun: { one: 'tool', many: 'tools' },
  };
}

/** A changed part as the warning shows it: quoted, so where it ends is plain. */
function quoted(text: string): string {
  return text === '(none)' ? text : JSON.stringify(text);
}

/** `Connector.discover`: the report in core's shape. */
export async function discoverSchema(
  spec: McpSpec,
  credentials: CredentialResolver,
): Promise<DiscoveredSchema> {
  return toDiscoveredSchema(spec, await discoverTools(spec, credentials));
}
