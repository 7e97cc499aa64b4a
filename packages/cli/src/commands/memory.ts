import type { Command } from 'commander';
import { toJson } from '@bufbuild/protobuf';
import {
  CandidateKind,
  CandidateSchema,
  CandidateStatus,
  MemoryService,
  PreferenceSchema,
  PreferenceSource,
  PreferenceStatus,
  RevisionStatus,
  SavedQuerySchema,
  SkillSchema,
} from '@tollgate/contracts/memory/v1';
import type { Candidate, Preference, SavedQuery, Skill } from '@tollgate/contracts/memory/v1';
import type { ActionRunner, CliContext } from '../context.js';
import { CLI_AGENT } from '../context.js';
import { renderFields, renderTable } from '../output/table.js';
import type { Column } from '../output/table.js';
import { short } from '../render/diff.js';
import { oneOf } from './parse.js';
import { CliError } from '../errors.js';
import type { JsonValue } from '@bufbuild/protobuf';

/** Whose memory a command reads, and the person doing it. */
interface MemoryOptions {
  /** The agent whose memory it is. */
  for: string;
  /** The person it belongs to / who reviews (default TOLLGATE_USER or the login name). */
  user?: string;
}

/**
 * `tollgate memory prefs ls | confirm ID | forget ID`, `memory candidates ls | confirm ID |
 * reject ID`, `memory saved-queries`, `memory skills`. A person reviews through the CLI's own
 * agent (`tollgate-cli`), which the tenant declares with the `reviewer` role: only such a
 * review surface, with a user, may confirm what agents proposed.
 */
export function registerMemory(program: Command, run: ActionRunner): void {
  const memory = program
    .command('memory')
    .description('what agents remember: preferences, candidates, saved queries, skills');
  const scoped = (command: Command) =>
    command
      .requiredOption('--for <agent>', 'the agent whose memory it is')
      .option('--user <name>', 'the person (default TOLLGATE_USER or the login name)');

  const prefs = memory.command('prefs').description('facts remembered about a user or agent');
  scoped(
    prefs.command('ls').description('preferences in effect and waiting for confirmation'),
  ).action(
    run(async (ctx, options: MemoryOptions) => {
      const client = await memoryClient(ctx, options);
      const items = await pages((pageToken) =>
        client
          .listPreferences({ agent: options.for, pageSize: 100, pageToken })
          .then((r) => ({ items: r.preferences, next: r.nextPageToken })),
      );
      ctx.out.result({ preferences: items.map((p) => toJson(PreferenceSchema, p)) }, () =>
        items.length === 0
          ? `nothing remembered for ${options.for}`
          : renderTable(
              [
                { header: 'ID', cell: (p: Preference) => p.id, max: 36 },
                { header: 'KEY', cell: (p) => p.key },
                { header: 'STATUS', cell: (p) => label(PreferenceStatus[p.status]) },
                { header: 'SOURCE', cell: (p) => label(PreferenceSource[p.source]) },
                { header: 'USER', cell: (p) => p.user || '(all)' },
                { header: 'TEXT', cell: (p) => p.text, max: 60 },
              ],
              items,
              ctx.out.style,
            ),
      );
    }),
  );
  scoped(
    prefs
      .command('confirm')
      .description('confirm a staged preference (only a person at a review surface may)')
      .argument('<id>'),
  ).action(
    run(async (ctx, id: string, options: MemoryOptions) => {
      const client = await memoryClient(ctx, options);
      const { preference } = await client.confirmPreference({ id });
      if (preference === undefined) throw new Error(`the memory service answered without ${id}`);
      ctx.out.result(
        toJson(PreferenceSchema, preference),
        `${ctx.out.style.green('confirmed')} ${preference.key} (${preference.confirmedBy})`,
      );
    }),
  );
  scoped(prefs.command('forget').description('forget a preference').argument('<id>')).action(
    run(async (ctx, id: string, options: MemoryOptions) => {
      const client = await memoryClient(ctx, options);
      await client.forgetPreference({ id });
      ctx.out.result({ id, forgotten: true }, `forgot ${id}`);
    }),
  );

  const candidates = memory
    .command('candidates')
    .description('what memory proposes to remember, waiting for a person');
  listByStatus(
    scoped(candidates.command('ls').description('candidates (pending unless --status)')),
    run,
    {
      what: 'candidates',
      statuses: CANDIDATE_STATUS,
      fetch: async (client, agent, status, pageToken) => {
        const r = await client.listCandidates({ agent, status, pageSize: 100, pageToken });
        return { items: r.candidates, next: r.nextPageToken };
      },
      json: (c: Candidate) => toJson(CandidateSchema, c),
      columns: [
        { header: 'ID', cell: (c) => c.id, max: 36 },
        { header: 'KIND', cell: (c) => label(CandidateKind[c.kind]) },
        { header: 'USER', cell: (c) => c.user || '(all)' },
        { header: 'CONFIDENCE', cell: (c) => c.confidence.toFixed(2) },
        { header: 'SUMMARY', cell: (c) => c.summary, max: 70 },
      ],
    },
  );
  scoped(
    candidates
      .command('confirm')
      .description('confirm a candidate: what it proposes is created and in effect')
      .argument('<id>'),
  )
    .option('--name <name>', 'name for a saved query or skill (default: the proposed one)')
    .option('--description <text>', 'description for a saved query or skill')
    .option(
      '--fix <name=value...>',
      'fix a proposed parameter (or skill input) as a constant; the value is JSON, or else text',
    )
    .action(
      run(
        async (
          ctx,
          id: string,
          options: MemoryOptions & { name?: string; description?: string; fix?: string[] },
        ) => {
          const client = await memoryClient(ctx, options);
          const { candidate } = await client.confirmCandidate({
            id,
            name: options.name ?? '',
            description: options.description ?? '',
            fixed: fixedValues(options.fix ?? []),
          });
          if (candidate === undefined) throw new Error(`the memory service answered without ${id}`);
          ctx.out.result(toJson(CandidateSchema, candidate), () =>
            [
              `${ctx.out.style.green('confirmed')} ${candidate.id}`,
              renderFields(
                [
                  ['kind', label(CandidateKind[candidate.kind])],
                  ['created', candidate.createdId || '-'],
                  ['decided by', candidate.decidedBy || '-'],
                ],
                ctx.out.style,
              ),
            ].join('\n'),
          );
        },
      ),
    );
  scoped(candidates.command('reject').description('reject a candidate for good').argument('<id>'))
    .option('--reason <text>', 'why')
    .action(
      run(async (ctx, id: string, options: MemoryOptions & { reason?: string }) => {
        const client = await memoryClient(ctx, options);
        const { candidate } = await client.rejectCandidate({ id, reason: options.reason ?? '' });
        if (candidate === undefined) throw new Error(`the memory service answered without ${id}`);
        ctx.out.result(
          toJson(CandidateSchema, candidate),
          `${ctx.out.style.red('rejected')} ${id}`,
        );
      }),
    );

  listByStatus(
    scoped(
      memory
        .command('saved-queries')
        .description(
          'saved queries (approved unless --status); approved ones are offered as tools',
        ),
    ),
    run,
    {
      what: 'saved queries',
      key: 'savedQueries',
      statuses: REVISION_STATUS,
      fetch: async (client, agent, status, pageToken) => {
        const r = await client.listSavedQueries({ agent, status, pageSize: 100, pageToken });
        return { items: r.savedQueries, next: r.nextPageToken };
      },
      json: (q: SavedQuery) => toJson(SavedQuerySchema, q),
      columns: [
        { header: 'TOOL', cell: (q) => `sq_${q.name}` },
        { header: 'REV', cell: (q) => String(q.revision) },
        { header: 'RUNS', cell: (q) => q.tool },
        { header: 'PARAMETERS', cell: (q) => q.parameters.map((p) => p.name).join(', ') },
        { header: 'FIXED', cell: (q) => short(q.arguments ?? {}, 50) },
        { header: 'USER', cell: (q) => q.user || '(all)' },
      ],
    },
  );

  listByStatus(
    scoped(memory.command('skills').description('skills (approved unless --status)')),
    run,
    {
      what: 'skills',
      statuses: REVISION_STATUS,
      fetch: async (client, agent, status, pageToken) => {
        const r = await client.listSkills({ agent, status, pageSize: 100, pageToken });
        return { items: r.skills, next: r.nextPageToken };
      },
      json: (s: Skill) => toJson(SkillSchema, s),
      columns: [
        { header: 'NAME', cell: (s) => s.name },
        { header: 'REV', cell: (s) => String(s.revision) },
        { header: 'TOOLS', cell: (s) => s.tools.join(', ') },
        { header: 'DESCRIPTION', cell: (s) => s.description, max: 60 },
      ],
    },
  );
}

type MemoryClient = Awaited<ReturnType<typeof memoryClient>>;

/**
 * One listing command: `--status` (the first of `statuses` by default), every page fetched, a
 * table for people and `{ <key>: [...] }` for --json.
 */
function listByStatus<Row, S>(
  command: Command,
  run: ActionRunner,
  spec: {
    what: string;
    /** The --json member (default: `what`). */
    key?: string;
    statuses: Record<string, S>;
    fetch(
      client: MemoryClient,
      agent: string,
      status: S,
      pageToken: string,
    ): Promise<{ items: Row[]; next: string }>;
    json(row: Row): unknown;
    columns: ReadonlyArray<Column<Row>>;
  },
): void {
  const names = Object.keys(spec.statuses);
  command.option('--status <status>', names.join(', ')).action(
    run(async (ctx, options: MemoryOptions & { status?: string }) => {
      const status = oneOf('--status', options.status ?? names[0]!, names);
      const client = await memoryClient(ctx, options);
      const items = await pages((token) =>
        spec.fetch(client, options.for, spec.statuses[status] as S, token),
      );
      ctx.out.result({ [spec.key ?? spec.what]: items.map(spec.json) }, () =>
        items.length === 0
          ? `no ${status} ${spec.what} for ${options.for}`
          : renderTable(spec.columns, items, ctx.out.style),
      );
    }),
  );
}

const CANDIDATE_STATUS: Record<string, CandidateStatus> = {
  pending: CandidateStatus.PENDING,
  confirmed: CandidateStatus.CONFIRMED,
  rejected: CandidateStatus.REJECTED,
};

const REVISION_STATUS: Record<string, RevisionStatus> = {
  approved: RevisionStatus.APPROVED,
  proposed: RevisionStatus.PROPOSED,
  rejected: RevisionStatus.REJECTED,
};

/** The memory service as the person, through the CLI's own agent. */
async function memoryClient(ctx: CliContext, options: MemoryOptions) {
  const token = await ctx.agentToken(CLI_AGENT, { user: options.user ?? ctx.user() });
  return (await ctx.grpc('memory', MemoryService, token)).client;
}

/** `--fix name=value` pairs as an object; a value that parses as JSON is taken as JSON. */
export function fixedValues(pairs: readonly string[]): Record<string, JsonValue> {
  const fixed: Record<string, JsonValue> = {};
  for (const pair of pairs) {
    const at = pair.indexOf('=');
    if (at < 1)
      throw new CliError('INVALID_ARGUMENT', `--fix ${pair}: expected name=value`, { usage: true });
    const raw = pair.slice(at + 1);
    let value: JsonValue;
    try {
      value = JSON.parse(raw) as JsonValue;
    } catch {
      value = raw;
    }
    fixed[pair.slice(0, at)] = value;
  }
  return fixed;
}

async function pages<T>(
  fetch: (pageToken: string) => Promise<{ items: T[]; next: string }>,
): Promise<T[]> {
  const all: T[] = [];
  let token = '';
  do {
    const page = await fetch(token);
    all.push(...page.items);
    token = page.next;
  } while (token !== '' && all.length < 10_000);
  return all;
}

/** An enum value's name as words: `SAVED_QUERY` → `saved query`. */
function label(name: string | undefined): string {
  return (name ?? 'unknown').toLowerCase().replace(/_/g, ' ');
}
