import type { Command } from 'commander';
import type { Tool, ToolFormatName } from '@tollgate/sdk';
import type { ActionRunner, CliContext } from '../context.js';
import { renderTable } from '../output/table.js';
import { toolShape } from '../render/tool-shape.js';
import { oneOf, positiveInt } from './parse.js';

const FORMATS = ['json', 'openai', 'anthropic', 'mcp'] as const;

/** `tollgate tools ls --as AGENT [--task TEXT] [--format json|openai|anthropic|mcp]`. */
export function registerTools(program: Command, run: ActionRunner): void {
  const tools = program.command('tools').description('the tools an agent is offered');
  tools
    .command('ls')
    .description('list the tools an agent may use (most relevant to --task first)')
    .requiredOption('--as <agent>', 'the agent whose tools to list')
    .option('--user <name>', 'the person the agent acts for')
    .option('--task <text>', 'what the agent is about to do; ranks resources by relevance')
    .option('--format <format>', `print the tools rendered for an LLM API: ${FORMATS.join(', ')}`)
    .option('--top <k>', 'tools of at most this many resources')
    .option('--session <id>', 'conversation the listing belongs to')
    .action(
      run(
        async (
          ctx,
          options: {
            as: string;
            user?: string;
            task?: string;
            format?: string;
            top?: string;
            session?: string;
          },
        ) => {
          const format = options.format ? oneOf('--format', options.format, FORMATS) : undefined;
          const topK = options.top ? positiveInt('--top', options.top) : undefined;
          const client = await ctx.agentClient(
            options.as,
            options.user ? { user: options.user } : {},
          );
          const list = await client.listTools({
            format: wireFormat(format ?? 'json'),
            ...(options.task ? { task: options.task } : {}),
            ...(topK ? { topK } : {}),
            ...(options.session ? { sessionId: options.session } : {}),
          });
          const document = { agent: options.as, tools: list.map(plainTool) };
          if (format !== undefined && !ctx.out.json) {
            ctx.out.result(
              document,
              JSON.stringify(
                list.map((t) => t.rendering),
                null,
                2,
              ),
            );
            return;
          }
          ctx.out.result(document, () => renderTools(ctx, options.as, list));
        },
      ),
    );
}

function wireFormat(format: (typeof FORMATS)[number]): ToolFormatName {
  return format === 'json' ? 'json_schema' : format;
}

/** A tool as JSON output: identity, schema, rendering and what it allows. */
export function plainTool(tool: Tool) {
  return {
    name: tool.name,
    description: tool.description,
    operation: tool.operation,
    resource: tool.resource,
    resourceVersion: tool.resourceVersion,
    resourceKind: tool.resourceKind,
    version: tool.version,
    callSubject: tool.callSubject,
    allows: toolShape(tool.inputSchema),
    inputSchema: tool.inputSchema,
    format: tool.format,
    rendering: tool.rendering,
    ...(tool.savedQuery ? { savedQuery: tool.savedQuery } : {}),
  };
}

function renderTools(ctx: CliContext, agent: string, tools: readonly Tool[]): string {
  if (tools.length === 0)
    return `${agent} is offered no tools in ${ctx.tenant()}/${ctx.environment()}`;
  const table = renderTable(
    [
      { header: 'TOOL', cell: (t: Tool) => t.name },
      { header: 'OP', cell: (t) => t.operation },
      { header: 'RESOURCE', cell: (t) => `${t.resource}@v${t.resourceVersion}` },
      { header: 'LIMIT', cell: (t) => String(toolShape(t.inputSchema).limit ?? '-'), right: true },
      { header: 'ALLOWS', cell: (t) => allows(t), max: 90 },
    ],
    tools,
    ctx.out.style,
  );
  return `${table}\n${ctx.out.style.dim(`${tools.length} tool${tools.length === 1 ? '' : 's'} for ${agent}; --json or --format for the schemas`)}`;
}

/** One line: which fields it filters on, shows, writes or aggregates (operators in --json). */
export function allows(tool: Tool): string {
  if (tool.savedQuery) {
    const parameters = Object.keys((tool.inputSchema.properties as object | undefined) ?? {});
    return `saved query: ${tool.savedQuery.baseTool}(${parameters.join(', ')})`;
  }
  const shape = toolShape(tool.inputSchema);
  const parts: string[] = [];
  const filters = Object.keys(shape.filters);
  if (filters.length > 0) parts.push(`filter ${filters.join(',')}`);
  if (shape.fields.length > 0) parts.push(`see ${shape.fields.join(',')}`);
  if (shape.writable.length > 0) parts.push(`write ${shape.writable.join(',')}`);
  const aggs = Object.entries(shape.aggregations);
  if (aggs.length > 0) parts.push(`${aggs.map(([k, f]) => `${k}(${f.join(',')})`).join(' ')}`);
  return parts.join('; ');
}
