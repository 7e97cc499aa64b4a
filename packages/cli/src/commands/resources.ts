import type { Command } from 'commander';
import { toJson } from '@bufbuild/protobuf';
import { timestampDate } from '@bufbuild/protobuf/wkt';
import { RegistryService, ResourceVersionSchema } from '@tollgate/contracts/registry/v1';
import type { ResourceVersion } from '@tollgate/contracts/registry/v1';
import { stringify } from 'yaml';
import type { ActionRunner, CliContext } from '../context.js';
import { usageError } from '../errors.js';
import { renderFields, renderTable } from '../output/table.js';
import { diffLines, renderDiff } from '../render/diff.js';
import { positiveInt } from './parse.js';

/** `tollgate resources ls | get | history | rollback | delete`. */
export function registerResources(program: Command, run: ActionRunner): void {
  const resources = program
    .command('resources')
    .description('resources in the registry (tenant and environment from --tenant/--env)');

  resources
    .command('ls')
    .description('list the current version of every resource')
    .option('--deleted', 'include deleted resources')
    .option('--label <key=value...>', 'only resources with these labels')
    .action(
      run(async (ctx, options: { deleted?: boolean; label?: string[] }) => {
        const { client } = await registry(ctx);
        const labels = Object.fromEntries((options.label ?? []).map(parseLabel));
        const all: ResourceVersion[] = [];
        let pageToken = '';
        do {
          const page = await client.list({
            tenant: ctx.tenant(),
            environment: ctx.environment(),
            labels,
            includeDeleted: options.deleted === true,
            pageSize: 200,
            pageToken,
          });
          all.push(...page.resources);
          pageToken = page.nextPageToken;
        } while (pageToken !== '');
        ctx.out.result({ resources: all.map(plain) }, () =>
          all.length === 0
            ? `no resources in ${ctx.tenant()}/${ctx.environment()}`
            : renderTable(
                [
                  {
                    header: 'NAME',
                    cell: (r: ResourceVersion) => r.name + (r.deleted ? ' (deleted)' : ''),
                  },
                  { header: 'VERSION', cell: (r) => String(r.version), right: true },
                  { header: 'TYPE', cell: (r) => String(spec(r).type ?? '') },
                  { header: 'TARGET', cell: (r) => target(r) },
                  { header: 'UPDATED', cell: (r) => when(r) },
                  { header: 'DESCRIPTION', cell: (r) => description(r) },
                ],
                all,
                ctx.out.style,
              ),
        );
      }),
    );

  resources
    .command('get')
    .description('show a resource (the current version, or --version N)')
    .argument('<name>')
    .option('--version <n>', 'a past version')
    .action(
      run(async (ctx, name: string, options: { version?: string }) => {
        const { client } = await registry(ctx);
        const version = options.version ? positiveInt('--version', options.version) : 0;
        const response = await client.get({ ...scope(ctx), name, version });
        const r = required(response.resource, name);
        ctx.out.result(plain(r), () =>
          [
            renderFields(
              [
                ['resource', `${r.tenant}/${r.environment}/${r.name}`],
                [
                  'version',
                  `v${r.version}${r.deleted ? ' (deleted)' : ''}${r.rolledBackFrom ? ` (rollback to v${r.rolledBackFrom})` : ''}`,
                ],
                ['created', `${when(r)} by ${r.createdBy || '-'}`],
                ['hash', r.contentHash],
              ],
              ctx.out.style,
            ),
            '',
            stringify(r.descriptor ?? {}).trimEnd(),
          ].join('\n'),
        );
      }),
    );

  resources
    .command('history')
    .description('every version of a resource, newest first')
    .argument('<name>')
    .action(
      run(async (ctx, name: string) => {
        const { client } = await registry(ctx);
        const versions: ResourceVersion[] = [];
        let pageToken = '';
        do {
          const page = await client.history({ ...scope(ctx), name, pageSize: 200, pageToken });
          versions.push(...page.versions);
          pageToken = page.nextPageToken;
        } while (pageToken !== '');
        ctx.out.result({ name, versions: versions.map(plain) }, () =>
          renderTable(
            [
              { header: 'VERSION', cell: (r: ResourceVersion) => `v${r.version}`, right: true },
              { header: 'CREATED', cell: (r) => when(r) },
              { header: 'BY', cell: (r) => r.createdBy || '-' },
              {
                header: 'NOTE',
                cell: (r) =>
                  [
                    r.deleted ? 'deleted' : '',
                    r.rolledBackFrom ? `rollback to v${r.rolledBackFrom}` : '',
                  ]
                    .filter(Boolean)
                    .join(', '),
              },
              { header: 'HASH', cell: (r) => r.contentHash.slice(0, 16) },
            ],
            versions,
            ctx.out.style,
          ),
        );
      }),
    );

  resources
    .command('rollback')
    .description('make an earlier version current again (as a new version)')
    .argument('<name>')
    .requiredOption('--to <n>', 'the version to go back to')
    .action(
      run(async (ctx, name: string, options: { to: string }) => {
        const { client } = await registry(ctx);
        const toVersion = positiveInt('--to', options.to);
        const response = await client.rollback({ ...scope(ctx), name, toVersion });
        const r = required(response.resource, name);
        const diff = diffLines(response.diff);
        ctx.out.result({ resource: plain(r), diff }, () =>
          [
            `${ctx.out.style.bold(`resource/${name}`)} rolled back to the content of v${toVersion}: now v${r.version}`,
            ...(diff.length > 0 ? [renderDiff(diff, ctx.out.style)] : []),
          ].join('\n'),
        );
      }),
    );

  resources
    .command('delete')
    .description('delete a resource (its history stays; tools stop being offered)')
    .argument('<name>')
    .action(
      run(async (ctx, name: string) => {
        const { client } = await registry(ctx);
        const response = await client.delete({ ...scope(ctx), name });
        const r = required(response.resource, name);
        ctx.out.result({ resource: plain(r) }, `resource/${name} deleted (v${r.version})`);
      }),
    );
}

async function registry(ctx: CliContext) {
  return ctx.grpc('registry', RegistryService);
}

function scope(ctx: CliContext) {
  return { tenant: ctx.tenant(), environment: ctx.environment() };
}

function required(resource: ResourceVersion | undefined, name: string): ResourceVersion {
  if (resource === undefined) throw new Error(`the registry answered without the resource ${name}`);
  return resource;
}

/** A resource version as JSON (proto JSON names, RFC 3339 times). */
export function plain(r: ResourceVersion) {
  return toJson(ResourceVersionSchema, r);
}

function spec(r: ResourceVersion): Record<string, unknown> {
  const s = r.descriptor?.spec;
  return typeof s === 'object' && s !== null && !Array.isArray(s)
    ? (s as Record<string, unknown>)
    : {};
}

function description(r: ResourceVersion): string {
  const m = r.descriptor?.metadata as Record<string, unknown> | undefined;
  return typeof m?.description === 'string' ? m.description : '';
}

function target(r: ResourceVersion): string {
  const t = spec(r).target as Record<string, unknown> | undefined;
  return typeof t?.index === 'string' ? t.index : '';
}

function when(r: ResourceVersion): string {
  return r.createdAt
    ? timestampDate(r.createdAt)
        .toISOString()
        .replace(/\.\d+Z$/, 'Z')
    : '-';
}

function parseLabel(text: string): [string, string] {
  const at = text.indexOf('=');
  if (at <= 0) throw usageError(`--label: expected key=value, found ${JSON.stringify(text)}`);
  return [text.slice(0, at), text.slice(at + 1)];
}
