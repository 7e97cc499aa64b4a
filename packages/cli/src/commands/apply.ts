import type { Command } from 'commander';
import type { ActionRunner, CliContext } from '../context.js';
import { applyDescriptors } from '../apply/apply.js';
import type { AppliedDescriptor } from '../apply/apply.js';
import { loadDescriptors } from '../apply/load.js';
import type { Progress } from '../output/output.js';
import { renderDiff } from '../render/diff.js';

/** Files at or above this count get a progress display. */
const PROGRESS_FROM = 5;

/** `tollgate apply -f FILE|DIR…`: Resource, Agent and Policy descriptors, with a diff. */
export function registerApply(program: Command, run: ActionRunner): void {
  program
    .command('apply')
    .description(
      'apply Resource, Agent and Policy descriptors (YAML/JSON files or folders); prints a diff',
    )
    .requiredOption('-f, --file <path...>', 'descriptor file or folder (repeatable)')
    .option('--dry-run', 'validate and show the diff without saving anything')
    .action(
      run(async (ctx, options: { file: string[]; dryRun?: boolean }) => {
        let loading: Progress | undefined;
        let loaded;
        try {
          loaded = await loadDescriptors(options.file, ctx.io.cwd, (file, i, total) => {
            if (total >= PROGRESS_FROM) loading ??= ctx.out.progress('reading descriptors');
            loading?.update(`${i + 1}/${total} ${file}`);
          });
        } catch (err) {
          loading?.fail();
          throw err;
        }
        loading?.done(`${loaded.length} document${loaded.length === 1 ? '' : 's'}`);
        const dryRun = options.dryRun === true;
        const step = loaded.length >= PROGRESS_FROM ? ctx.out.progress('applying') : undefined;
        let applied: AppliedDescriptor[];
        try {
          applied = await applyDescriptors(ctx, loaded, {
            dryRun,
            onApplied: (done, i, total) => {
              step?.update(`${i + 1}/${total} ${done.kind.toLowerCase()}/${done.name}`);
              // Shown as it goes, so a later failure still tells what was applied.
              if (!ctx.out.json) ctx.out.line(renderApplied(ctx, done));
            },
          });
        } catch (err) {
          step?.fail();
          throw err;
        }
        step?.done();
        ctx.out.result({ dryRun, applied }, () => summaryLine(applied, dryRun));
      }),
    );
}

function renderApplied(ctx: CliContext, a: AppliedDescriptor): string {
  const { style } = ctx.out;
  const scope = a.environment ? `${a.tenant}/${a.environment}` : a.tenant;
  const head = `${style.bold(`${a.kind.toLowerCase()}/${a.name}`)} ${style.dim(`(${scope})`)}`;
  const outcome =
    a.outcome === 'unchanged'
      ? style.dim(`unchanged (v${a.version})`)
      : a.outcome === 'created'
        ? style.green(`created v${a.version}`)
        : style.yellow(`updated to v${a.version}`);
  const lines = [`${head} ${outcome}`];
  // A new document is all additions: the first lines say enough.
  if (a.outcome !== 'unchanged' && a.diff.length > 0) {
    lines.push(renderDiff(a.diff, style, a.outcome === 'created' ? 8 : 40));
  }
  for (const w of a.warnings) {
    lines.push(style.yellow(`    warning ${w.code}${w.path ? ` at ${w.path}` : ''}: ${w.message}`));
  }
  return lines.join('\n');
}

function summaryLine(applied: readonly AppliedDescriptor[], dryRun: boolean): string {
  const count = (o: AppliedDescriptor['outcome']) => applied.filter((a) => a.outcome === o).length;
  const parts = [
    `${count('created')} created`,
    `${count('updated')} updated`,
    `${count('unchanged')} unchanged`,
  ];
  return `${dryRun ? 'dry run (nothing saved): ' : ''}${parts.join(', ')}`;
}
