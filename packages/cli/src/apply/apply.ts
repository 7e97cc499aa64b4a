import type { JsonObject } from '@bufbuild/protobuf';
import type { Descriptor, DescriptorKind } from '@tollgate/core';
import { PolicyService } from '@tollgate/contracts/policy/v1';
import { RegistryService } from '@tollgate/contracts/registry/v1';
import type { Warning } from '@tollgate/contracts/common/v1';
import { CLI_AGENT } from '../context.js';
import type { CliContext } from '../context.js';
import { CliError } from '../errors.js';
import { diffLines } from '../render/diff.js';
import type { DiffLine } from '../render/diff.js';
import type { LoadedDescriptor } from './load.js';
import { identity } from './load.js';

/** What applying one descriptor did. */
export interface AppliedDescriptor {
  kind: DescriptorKind;
  name: string;
  tenant: string;
  /** Resources only. */
  environment?: string;
  source: string;
  line: number;
  /** The version now current (for a dry run: the one it would become). */
  version: number;
  /** `created` (first version), `updated`, or `unchanged`. */
  outcome: 'created' | 'updated' | 'unchanged';
  diff: DiffLine[];
  warnings: Array<{ code: string; path: string; message: string }>;
}

/** Agents first (policies name them), then resources, then policies (they name both). */
const ORDER: Record<DescriptorKind, number> = { Agent: 0, Resource: 1, Policy: 2 };

/**
 * The documents in the order they are applied, stable within a kind — except that the
 * caller's own Agent goes first, so declaring it (as admin) bootstraps an empty tenant.
 */
export function applyOrder(
  loaded: readonly LoadedDescriptor[],
  caller: string = CLI_AGENT,
): LoadedDescriptor[] {
  const rank = (d: Descriptor) =>
    d.kind === 'Agent' && d.metadata.name === caller ? -1 : ORDER[d.kind];
  return [...loaded].sort((a, b) => rank(a.descriptor) - rank(b.descriptor));
}

/**
 * Sends every descriptor to the service that owns it — Agents and Policies to the policy
 * service, Resources to the registry — as the CLI's agent in the descriptor's tenant (and,
 * for resources, environment). Stops at the first refusal, saying what was applied before it.
 */
export async function applyDescriptors(
  ctx: CliContext,
  loaded: readonly LoadedDescriptor[],
  options: {
    dryRun: boolean;
    onApplied?: (applied: AppliedDescriptor, index: number, total: number) => void;
  },
): Promise<AppliedDescriptor[]> {
  const ordered = applyOrder(loaded);
  const applied: AppliedDescriptor[] = [];
  for (const [index, item] of ordered.entries()) {
    let result: AppliedDescriptor;
    try {
      result = await applyOne(ctx, item, options.dryRun);
    } catch (err) {
      const failure = ctx.failureOf(err);
      const before =
        applied.length === 0 ? 'nothing was applied' : `${applied.length} applied before it`;
      throw new CliError(
        failure.code,
        `${identity(item.descriptor)} (${item.source}:${item.line}): ${failure.message} (${before})`,
        { details: failure.details, cause: err },
      );
    }
    applied.push(result);
    options.onApplied?.(result, index, ordered.length);
  }
  return applied;
}

async function applyOne(
  ctx: CliContext,
  item: LoadedDescriptor,
  dryRun: boolean,
): Promise<AppliedDescriptor> {
  const d: Descriptor = item.descriptor;
  const descriptor = d as unknown as JsonObject;
  const tenant = d.metadata.tenant;
  const base = {
    kind: d.kind,
    name: d.metadata.name,
    tenant,
    source: item.source,
    line: item.line,
  };
  if (d.kind === 'Resource') {
    const environment = d.metadata.environment;
    const token = await ctx.operatorToken({ tenant, environment });
    const { client } = await ctx.grpc('registry', RegistryService, token);
    const response = await client.apply({ descriptor, dryRun });
    return finish({ ...base, environment }, response.resource?.version ?? 0, response);
  }
  const token = await ctx.operatorToken({ tenant });
  const { client } = await ctx.grpc('policy', PolicyService, token);
  if (d.kind === 'Agent') {
    const response = await client.applyAgent({ descriptor, dryRun });
    return finish(base, response.agent?.version ?? 0, response);
  }
  const response = await client.applyPolicy({ descriptor, dryRun });
  return finish(base, response.policy?.version ?? 0, response);
}

function finish(
  base: Omit<AppliedDescriptor, 'version' | 'outcome' | 'diff' | 'warnings'>,
  version: number,
  response: { unchanged: boolean; diff: Parameters<typeof diffLines>[0]; warnings: Warning[] },
): AppliedDescriptor {
  return {
    ...base,
    version,
    outcome: response.unchanged ? 'unchanged' : version <= 1 ? 'created' : 'updated',
    diff: diffLines(response.diff),
    warnings: response.warnings.map((w) => ({ code: w.code, path: w.path, message: w.message })),
  };
}
