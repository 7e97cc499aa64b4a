import { parsePublishedResource } from '@tollgate/core';
import type { PublishedResource } from '@tollgate/core';
import type { ChangeKind, VersionRecord } from './records.js';

/**
 * The KV value of a live version: a `PublishedResource` (what other services read) plus a
 * `registry` block they ignore, carrying the rest of the version so registry instances can
 * keep their catalog current from the bucket alone, without reading the store.
 */
export type ProjectionValue = PublishedResource & {
  registry: Pick<VersionRecord, 'previousVersion' | 'change' | 'createdBy' | 'rolledBackFrom'>;
};

const CHANGES: readonly ChangeKind[] = ['applied', 'rolled_back', 'deleted'];

export function projectionValue(record: VersionRecord): ProjectionValue {
  return {
    tenant: record.tenant,
    environment: record.environment,
    name: record.name,
    version: record.version,
    hash: record.hash,
    descriptor: record.descriptor,
    publishedAt: record.createdAt.toISOString(),
    registry: {
      previousVersion: record.previousVersion,
      change: record.change,
      createdBy: record.createdBy,
      rolledBackFrom: record.rolledBackFrom,
    },
  };
}

/** The version and hash a KV value holds; undefined when it is not a PublishedResource. */
export function stateOf(value: Uint8Array): { version: number; hash: string } | undefined {
  const parsed = parsePublishedResource(value);
  return 'invalid' in parsed ? undefined : { version: parsed.version, hash: parsed.hash };
}

/** The version a KV value describes, when it is one of ours and complete. */
export function recordOf(value: Uint8Array): VersionRecord | undefined {
  const parsed = parsePublishedResource(value);
  if ('invalid' in parsed) return undefined;
  const extra = (parsed as Partial<ProjectionValue>).registry;
  const createdAt = new Date(parsed.publishedAt);
  if (
    typeof extra !== 'object' ||
    extra === null ||
    !Number.isSafeInteger(extra.previousVersion) ||
    !CHANGES.includes(extra.change) ||
    typeof extra.createdBy !== 'string' ||
    !Number.isSafeInteger(extra.rolledBackFrom) ||
    Number.isNaN(createdAt.getTime())
  ) {
    return undefined;
  }
  const meta = parsed.descriptor.metadata;
  if (
    meta?.tenant !== parsed.tenant ||
    meta.environment !== parsed.environment ||
    meta.name !== parsed.name
  ) {
    return undefined;
  }
  return {
    tenant: parsed.tenant,
    environment: parsed.environment,
    name: parsed.name,
    version: parsed.version,
    previousVersion: extra.previousVersion,
    change: extra.change,
    deleted: false,
    hash: parsed.hash,
    descriptor: parsed.descriptor,
    createdAt,
    createdBy: extra.createdBy,
    rolledBackFrom: extra.rolledBackFrom,
  };
}
