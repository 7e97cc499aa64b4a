/**
 * How the demo shows a resource of another kind: the declaration as written, what discovery
 * read from the real server, the apply, the tools support gets from it, and a call as typed.
 */
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import type * as YamlModule from 'yaml';
import { renderOutcome, renderTable, toolShape } from '../packages/cli/dist/index.js';
import type { PlainOutcome } from '../packages/cli/dist/index.js';
import { DemoError } from './demo.narrator.js';
import type { Narrator } from './demo.narrator.js';

/** Where the demo keeps what it writes: descriptors naming this stack, the shop login's secret. */
export const DEMO_DIR = fileURLToPath(new URL('../.tollgate/demo/', import.meta.url));

// yaml is a dependency of the test package.
const requireFromTests = createRequire(new URL('../test/package.json', import.meta.url));
const yaml = requireFromTests('yaml') as typeof YamlModule;

/** YAML as an operator writes it: small maps (a field, a connection) on one line each. */
function compactYaml(value: unknown): string {
  const doc = new yaml.Document(value);
  yaml.visit(doc, {
    Map(_, node, path) {
      const depth = path.filter((p) => yaml.isMap(p)).length;
      if (depth >= 2 && JSON.stringify(node.toJSON()).length <= 90) node.flow = true;
    },
    Seq(_, node) {
      node.flow = true;
    },
  });
  return doc.toString({ lineWidth: 100 });
}

/**
 * Writes the declaration to .tollgate/demo/<file>.yaml (it names this stack's addresses),
 * shows it, discovers it against the real server (the types it reads), and applies the
 * discovered descriptor: `created` the first time, `unchanged` on a rerun.
 */
export async function declareAndApply(
  n: Narrator,
  file: string,
  declared: Record<string, unknown>,
): Promise<void> {
  await mkdir(DEMO_DIR, { recursive: true });
  const path = relative(process.cwd(), join(DEMO_DIR, `${file}.yaml`));
  await writeFile(
    path,
    `# Written by the demo: it names this stack's addresses.\n${compactYaml(declared)}`,
  );
  const text = await readFile(path, 'utf8');
  n.line(n.style.dim(text.split('\n').slice(1, -1).join('\n')));
  const args = ['discover', '-f', path];
  n.command(args);
  const found = await n.json<{
    fields: Array<{ name: string; type: string; nativeType: string; declared: boolean }>;
    descriptor: Record<string, unknown>;
  }>(args);
  const declaredFields = found.fields.filter((f) => f.declared);
  n.line(
    renderTable(
      [
        { header: 'FIELD', cell: (f: (typeof declaredFields)[number]) => f.name },
        { header: 'TYPE', cell: (f) => f.type },
        { header: 'NATIVE', cell: (f) => f.nativeType, max: 40 },
      ],
      declaredFields,
      n.style,
    ),
  );
  n.say(
    `${declaredFields.length} declared fields read from the server${found.fields.length > declaredFields.length ? `; ${found.fields.length - declaredFields.length} more found and left disabled` : ''}.`,
  );
  const discovered = join(DEMO_DIR, `${file}.discovered.yaml`);
  await writeFile(
    discovered,
    `# Written by the demo: ${path} as discovery completed it.\n${compactYaml(found.descriptor)}`,
  );
  await n.tollgate(['apply', '-f', relative(process.cwd(), discovered)]);
}

interface ToolDoc {
  name: string;
  operation: string;
  resource: string;
  inputSchema: Record<string, unknown>;
}

/** Support's tools of one resource, once the synthesizer offers them, one line each. */
export async function toolsOf(n: Narrator, resource: string): Promise<void> {
  const args = ['tools', 'ls', '--as', 'support'];
  n.command(args);
  const tools = await n.until(`support's ${resource} tools`, async () => {
    const doc = await n.json<{ tools: ToolDoc[] }>(args);
    const own = doc.tools.filter((t) => t.resource === resource);
    return own.length > 0 ? own : undefined;
  });
  n.line(
    renderTable(
      [
        { header: 'TOOL', cell: (t: ToolDoc) => t.name },
        { header: 'OP', cell: (t) => t.operation },
        { header: 'ALLOWS', cell: (t) => allows(t), max: 80 },
      ],
      tools,
      n.style,
    ),
  );
  n.say(`(${tools.length} of support's tools come from ${resource}; the rest as before)`);
}

/** What a tool lets support send and see; for kinds whose arguments are not filters, their names. */
function allows(tool: ToolDoc): string {
  const shape = toolShape(tool.inputSchema as never);
  const filters = Object.keys(shape.filters);
  const parts = [
    filters.length > 0 ? `filter ${filters.join(',')}` : '',
    shape.fields.length > 0 ? `see ${shape.fields.join(',')}` : '',
  ].filter(Boolean);
  if (parts.length > 0) return parts.join('; ');
  const properties = Object.keys((tool.inputSchema.properties as object | undefined) ?? {});
  return `arguments ${properties.join(', ')}`;
}

/** `tollgate call <tool> --as support` as typed, its outcome shown; it must succeed. */
export async function call(
  n: Narrator,
  user: string,
  tool: string,
  args: Record<string, unknown>,
): Promise<PlainOutcome> {
  const command = ['call', tool, '--as', 'support', '--user', user, '--args', JSON.stringify(args)];
  n.command(command);
  const { code, doc, stderr } = await n.run<PlainOutcome>(command);
  if (doc !== null) n.line(renderOutcome(doc, n.style));
  if (code !== 0 || doc?.status !== 'ok')
    throw new DemoError(`${tool} did not succeed: ${doc?.error?.message ?? stderr.trim()}`);
  return doc;
}
