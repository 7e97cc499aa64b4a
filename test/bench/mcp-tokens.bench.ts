/**
 * What the orders agents' tools cost in a model's context: each tool as an MCP client receives
 * it (`tools/list` entry: name, description, input schema, output schema, annotations) and as
 * the model is handed it (name, description, input schema), counted with a real tokenizer
 * (`gpt-tokenizer`, o200k_base — the GPT-4o / o-series vocabulary). Side by side: the
 * `per_field` filter layout (the default before) and `grouped`, the default now (one filter
 * branch per type and operator set, with a `field` enum). The demo's own descriptors (examples/orders) and policies decide who gets which
 * fields. Pure, no I/O beyond reading those files. Run: `npx tsx test/bench/mcp-tokens.bench.ts`
 * (`--smoke`: the same, it is already quick).
 */
import { readFile, readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { countTokens } from 'gpt-tokenizer/encoding/o200k_base';
import { narrowToDeclared } from '@tollgate/core';
import type { FilterLayout, ResourceDescriptor } from '@tollgate/core';
import { compileBundle } from '@tollgate/policy';
import { LocalDecider } from '@tollgate/policy';
import { mcpTool } from '../../services/mcp/src/index.js';
import { repoRoot } from '../support/process.js';
import { applyDefaults, operationsOf, parseResourceDescriptors, synthesize } from '@tollgate/kinds';

/** Token counts of one agent's listing in one layout. */
export interface ListingTokens {
  agent: string;
  layout: FilterLayout;
  tools: Array<{ name: string; listed: number; model: number; bytes: number }>;
  /** The whole `tools/list` result as JSON. */
  listing: number;
  meanPerTool: number;
}

/** The demo's descriptors, by kind. */
async function ordersExample() {
  const dir = join(repoRoot, 'examples', 'orders');
  const docs: Array<{ kind: string }> = [];
  for (const file of (await readdir(dir)).sort()) {
    for (const doc of parseResourceDescriptors(await readFile(join(dir, file), 'utf8'), file)
      .documents) {
      if (!doc.result.ok) throw new Error(`${file}: ${JSON.stringify(doc.result.problems)}`);
      docs.push(doc.result.descriptor);
    }
  }
  const of = <K extends string>(kind: K) => docs.filter((d) => d.kind === kind) as never[];
  return {
    resource: applyDefaults(of('Resource')[0]!) as unknown as ResourceDescriptor,
    agents: of('Agent'),
    policies: of('Policy'),
  };
}

export async function measureOrdersTokens(): Promise<ListingTokens[]> {
  const { resource, agents, policies } = await ordersExample();
  const tenant = resource.metadata.tenant;
  const compiled = compileBundle({
    tenant,
    version: 1,
    agents,
    policies,
    resources: [{ descriptor: resource, version: 1, operations: operationsOf(resource) }],
  });
  if (!compiled.ok) throw new Error(`orders bundle: ${JSON.stringify(compiled.problems)}`);
  const decider = LocalDecider.fromBundle(compiled.bundle);
  const versioned = { ...resource, version: 1 };
  const out: ListingTokens[] = [];
  for (const agent of ['support', 'order_ops']) {
    const principal = { tenant, agent, environment: resource.metadata.environment };
    const permissions = narrowToDeclared(
      decider.permissionSet(principal, resource.metadata.name),
      versioned,
    );
    for (const layout of ['per_field', 'grouped'] as const) {
      const tools = synthesize(versioned, permissions, { filterLayout: layout }).map((t) =>
        mcpTool(
          {
            name: t.name,
            description: t.description,
            version: t.version,
            operation: t.operation,
            resource: resource.metadata.name,
            inputSchema: t.inputSchema as never,
            callSubject: '',
          },
          { tasks: false },
        ),
      );
      const rows = tools.map((t) => {
        const listed = JSON.stringify(t);
        return {
          name: t.name,
          listed: countTokens(listed),
          model: countTokens(
            JSON.stringify({ name: t.name, description: t.description, parameters: t.inputSchema }),
          ),
          bytes: Buffer.byteLength(listed),
        };
      });
      const listing = countTokens(JSON.stringify({ tools }));
      out.push({
        agent,
        layout,
        tools: rows,
        listing,
        meanPerTool: Math.round(rows.reduce((s, r) => s + r.listed, 0) / Math.max(1, rows.length)),
      });
    }
  }
  return out;
}

function print(rows: ListingTokens[]): void {
  const lines = [
    'o200k tokens per tool: as listed over MCP (with output schema and annotations) / as handed to the model; bytes of the listed JSON',
  ];
  for (const r of rows) {
    lines.push(
      `${r.agent} — layout ${r.layout}${r.layout === 'grouped' ? ' (default)' : ' (default before)'}: ${r.tools.length} tools, listing ${r.listing} tokens, mean ${r.meanPerTool} per tool`,
    );
    for (const t of r.tools)
      lines.push(
        `  ${t.name.padEnd(22)} ${String(t.listed).padStart(6)} / ${String(t.model).padStart(6)} tokens  ${String(t.bytes).padStart(7)} B`,
      );
  }
  for (const agent of new Set(rows.map((r) => r.agent))) {
    const [a, b] = [
      rows.find((r) => r.agent === agent && r.layout === 'per_field')!,
      rows.find((r) => r.agent === agent && r.layout === 'grouped')!,
    ];
    lines.push(
      `${agent}: grouped / per_field listing = ${Math.round((b.listing / a.listing) * 100) / 100}×`,
    );
  }
  process.stdout.write(
    `${lines.join('\n')}\n${JSON.stringify(rows.map(({ tools, ...r }) => ({ ...r, tools: tools.length })))}\n`,
  );
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  print(await measureOrdersTokens());
}
