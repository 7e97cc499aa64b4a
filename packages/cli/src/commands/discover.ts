import type { Command } from 'commander';
import type { JsonObject } from '@bufbuild/protobuf';
import { toJson } from '@bufbuild/protobuf';
import { DiscoveredFieldSchema, RegistryService } from '@tollgate/contracts/registry/v1';
import type { DiscoveredField } from '@tollgate/contracts/registry/v1';
import { resourceKinds } from '@tollgate/kinds';
import { stringify } from 'yaml';
import type { ActionRunner } from '../context.js';
import { loadDescriptors } from '../apply/load.js';
import { usageError } from '../errors.js';
import { renderTable } from '../output/table.js';
import type { Style } from '../output/style.js';
import { diffLines, renderDiff } from '../render/diff.js';
import type { DiffLine } from '../render/diff.js';

/** `tollgate discover -f FILE`: connect, read the real schema, show the merged draft. */
export function registerDiscover(program: Command, run: ActionRunner): void {
  program
    .command('discover')
    .description(
      'connect to a Resource, read its real schema and show the draft (nothing is saved)',
    )
    .requiredOption('-f, --file <path>', 'a file with one Resource descriptor')
    .action(
      run(async (ctx, options: { file: string }) => {
        const progress = ctx.out.progress('discovering');
        try {
          const loaded = await loadDescriptors([options.file], ctx.io.cwd);
          const resources = loaded.filter((l) => l.descriptor.kind === 'Resource');
          if (resources.length !== 1) {
            throw usageError(
              `${options.file}: expected exactly one Resource descriptor, found ${resources.length}`,
            );
          }
          const { descriptor } = resources[0]!;
          if (descriptor.kind !== 'Resource') throw usageError('not a Resource');
          const kind = resourceKinds.find(descriptor.spec.type);
          const target = kind ? `${kind.title} ${kind.describeTarget(descriptor.spec)}` : '';
          progress.update(`${descriptor.metadata.name}: reading ${target}`);
          const token = await ctx.operatorToken({
            tenant: descriptor.metadata.tenant,
            environment: descriptor.metadata.environment,
          });
          const { client } = await ctx.grpc('registry', RegistryService, token);
          const response = await client.discover({
            descriptor: descriptor as unknown as JsonObject,
          });
          progress.done(`${response.fields.length} fields`);
          const warnings = response.warnings.map((w) => ({
            code: w.code,
            path: w.path,
            message: w.message,
          }));
          const changes = diffLines(response.changes);
          ctx.out.result(
            {
              fields: response.fields.map((f) => toJson(DiscoveredFieldSchema, f)),
              descriptor: response.descriptor ?? {},
              warnings,
              currentVersion: response.currentVersion,
              changes,
            },
            () =>
              [
                renderTable(
                  [
                    { header: 'FIELD', cell: (f: DiscoveredField) => f.name },
                    { header: 'TYPE', cell: (f) => f.type },
                    { header: 'NATIVE', cell: (f) => f.nativeType },
                    {
                      header: 'DECLARED',
                      cell: (f) =>
                        f.declared
                          ? f.declaredType && f.declaredType !== f.type
                            ? `as ${f.declaredType}`
                            : 'yes'
                          : 'no',
                    },
                    { header: 'PROPOSED', cell: (f) => f.proposedCapabilities.join(', '), max: 70 },
                  ],
                  response.fields,
                  ctx.out.style,
                ),
                ...warnings.map((w) =>
                  ctx.out.style.yellow(
                    `warning ${w.code}${w.path ? ` at ${w.path}` : ''}: ${w.message}`,
                  ),
                ),
                ...renderSinceCurrent(response.currentVersion, changes, ctx.out.style),
                '',
                ctx.out.style.dim('# the draft (declared schema merged with what was discovered):'),
                stringify(response.descriptor ?? {}).trimEnd(),
              ].join('\n'),
          );
        } catch (err) {
          progress.fail();
          throw err;
        }
      }),
    );
}

/**
 * How the draft differs from the saved version: nothing for a new resource, a line when it
 * matches, otherwise the diff `tollgate apply` of the draft would make.
 */
export function renderSinceCurrent(
  currentVersion: number,
  changes: readonly DiffLine[],
  style: Style,
): string[] {
  if (currentVersion === 0) return [];
  if (changes.length === 0) return ['', style.dim(`# no change since version ${currentVersion}`)];
  const noun = changes.length === 1 ? 'change' : 'changes';
  return [
    '',
    style.bold(
      `# ${changes.length} ${noun} since version ${currentVersion} (applying the draft saves them):`,
    ),
    renderDiff(changes, style, 40),
  ];
}
