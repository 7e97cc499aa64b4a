import { TollgateError, descriptorInvalid } from '@tollgate/core';
import { validate } from '@tollgate/kinds';
import type { AgentDescriptor, PolicyDescriptor, PublishedResource } from '@tollgate/core';
import { cedarOfPolicy } from '../bundles/compile.js';
import type { Hashed, TenantCompiler } from '../bundles/compile.js';
import { notFound } from '../errors.js';
import type { DeclarationKind, DeclarationRecord } from '../store/declarations.js';

/** A tenant's declarations as one read found them (tombstones included). */
export interface TenantSnapshot {
  agents: DeclarationRecord<'Agent'>[];
  policies: DeclarationRecord<'Policy'>[];
}

/** Validates a descriptor (every problem at once) and checks its kind. */
export function validDescriptor<K extends DeclarationKind>(
  input: unknown,
  kind: K,
): K extends 'Agent' ? AgentDescriptor : PolicyDescriptor {
  const result = validate(input);
  if (!result.ok) throw descriptorInvalid(result.problems);
  const found = result.descriptor.kind;
  if (found !== kind) {
    const where =
      found === 'Resource'
        ? 'apply Resource descriptors to the registry'
        : `apply ${found} descriptors with Apply${found}`;
    const message = `Apply${kind} stores ${kind} descriptors; ${where}`;
    throw new TollgateError('INVALID_ARGUMENT', `descriptor.kind: ${message}`, {
      details: [{ path: 'kind', message, expected: kind, found: JSON.stringify(found) }],
    });
  }
  return result.descriptor as K extends 'Agent' ? AgentDescriptor : PolicyDescriptor;
}

/**
 * Compiles the tenant's bundles as they would be with `candidate` in place of its namesake; throws
 * DESCRIPTOR_INVALID with every problem when it does not compile (paths inside the candidate are
 * relative to it, e.g. `spec.cedar` with `line L, column C:` in the message). Returns the Cedar
 * a candidate policy compiles to.
 */
export function checkCandidate(
  compiler: TenantCompiler,
  tenant: string,
  snapshot: TenantSnapshot,
  resources: PublishedResource[],
  candidate: { agent: Hashed<AgentDescriptor> } | { policy: Hashed<PolicyDescriptor> },
): string {
  const agent = 'agent' in candidate ? candidate.agent : undefined;
  const policy = 'policy' in candidate ? candidate.policy : undefined;
  const compiled = compiler.compile({
    tenant,
    version: 0,
    agents: withCandidate(snapshot.agents, agent),
    policies: withCandidate(snapshot.policies, policy),
    resources,
  });
  const subject = (agent ?? policy)?.descriptor;
  const prefix = `${subject?.kind}/${subject?.metadata.name}/`;
  if (!compiled.ok) {
    throw descriptorInvalid(
      compiled.problems.map(({ path, message }) => ({
        path: path.startsWith(prefix) ? path.slice(prefix.length) : path,
        message,
      })),
    );
  }
  return policy === undefined
    ? ''
    : cedarOfPolicy(compiled.bundles, policy.descriptor.metadata.name);
}

function withCandidate<D extends AgentDescriptor | PolicyDescriptor>(
  records: (Hashed<D> & { deleted: boolean })[],
  candidate: Hashed<D> | undefined,
): Hashed<D>[] {
  const live = records.filter((r) => !r.deleted);
  if (candidate === undefined) return live;
  const name = candidate.descriptor.metadata.name;
  return [...live.filter((r) => r.descriptor.metadata.name !== name), candidate];
}

/** NOT_FOUND for a name never applied, or deleted. */
export function missing(
  kind: DeclarationKind,
  tenant: string,
  name: string,
  head: DeclarationRecord | undefined,
): TollgateError {
  return notFound(
    head === undefined
      ? `${kind} "${name}" of tenant "${tenant}" does not exist.`
      : `${kind} "${name}" of tenant "${tenant}" was deleted (version ${head.version}); ask for a specific version to read its history.`,
  );
}
