/**
 * Resource versions as the registry handles them, and as they are stored. Stored documents
 * are checked when read back: a malformed one is an internal error naming the document and
 * field, never silently served.
 */
import type { ResourceDescriptor } from '@tollgate/core';
import type { ResourceRef } from './scope.js';

/** What made a version. */
export type ChangeKind = 'applied' | 'rolled_back' | 'deleted';

/** One immutable version of a resource. */
export interface VersionRecord extends ResourceRef {
  /** Counts up from 1 per resource. */
  version: number;
  /** The version current before this one (0 for the first). */
  previousVersion: number;
  change: ChangeKind;
  /** True for the tombstone written by a delete (it keeps the last descriptor). */
  deleted: boolean;
  /** Canonical hash of `descriptor`. */
  hash: string;
  /** Validated, with defaults applied. */
  descriptor: ResourceDescriptor;
  createdAt: Date;
  /** Subject of the principal that made the version. */
  createdBy: string;
  /** The version this one restored (0 unless made by a rollback). */
  rolledBackFrom: number;
}

/**
 * Stored form of a `VersionRecord`. The descriptor is kept as JSON text: field names may
 * contain dots (`customer.email`), which MongoDB-compatible stores refuse as keys.
 */
export interface VersionDocument {
  _id: string;
  tenant: string;
  environment: string;
  name: string;
  version: number;
  previousVersion: number;
  change: ChangeKind;
  deleted: boolean;
  hash: string;
  descriptor: string;
  createdAt: Date;
  createdBy: string;
  rolledBackFrom: number;
}

const CHANGES: readonly ChangeKind[] = ['applied', 'rolled_back', 'deleted'];

export function toVersionDocument(id: string, record: VersionRecord): VersionDocument {
  return {
    _id: id,
    tenant: record.tenant,
    environment: record.environment,
    name: record.name,
    version: record.version,
    previousVersion: record.previousVersion,
    change: record.change,
    deleted: record.deleted,
    hash: record.hash,
    descriptor: JSON.stringify(record.descriptor),
    createdAt: record.createdAt,
    createdBy: record.createdBy,
    rolledBackFrom: record.rolledBackFrom,
  };
}

/** Reads a stored version back, checking every field. */
export function fromVersionDocument(doc: unknown): VersionRecord {
  const d = (typeof doc === 'object' && doc !== null ? doc : {}) as Record<string, unknown>;
  const id = typeof d._id === 'string' ? d._id : '(no id)';
  const bad = (field: string, expected: string): Error =>
    new Error(`stored resource version ${id} is malformed: ${field} is not ${expected}`);
  const text = (field: string): string => {
    const value = d[field];
    if (typeof value !== 'string' || value === '') throw bad(field, 'a non-empty string');
    return value;
  };
  const count = (field: string, min: number): number => {
    const value = d[field];
    if (typeof value !== 'number' || !Number.isSafeInteger(value) || value < min) {
      throw bad(field, `an integer of at least ${min}`);
    }
    return value;
  };
  const change = d.change as ChangeKind;
  if (!CHANGES.includes(change)) throw bad('change', `one of ${CHANGES.join(', ')}`);
  if (typeof d.deleted !== 'boolean') throw bad('deleted', 'a boolean');
  if (!(d.createdAt instanceof Date) || Number.isNaN(d.createdAt.getTime()))
    throw bad('createdAt', 'a date');
  const record: VersionRecord = {
    tenant: text('tenant'),
    environment: text('environment'),
    name: text('name'),
    version: count('version', 1),
    previousVersion: count('previousVersion', 0),
    change,
    deleted: d.deleted,
    hash: text('hash'),
    descriptor: undefined as unknown as ResourceDescriptor,
    createdAt: d.createdAt,
    createdBy: text('createdBy'),
    rolledBackFrom: count('rolledBackFrom', 0),
  };
  record.descriptor = readDescriptor(text('descriptor'), record, bad);
  return record;
}

function readDescriptor(
  json: string,
  ref: ResourceRef,
  bad: (field: string, expected: string) => Error,
): ResourceDescriptor {
  let parsed: unknown;
  try {
    parsed = JSON.parse(json);
  } catch {
    throw bad('descriptor', 'JSON');
  }
  const d = parsed as Partial<ResourceDescriptor> | null;
  const meta = d?.metadata;
  if (d?.kind !== 'Resource' || typeof d.spec !== 'object' || d.spec === null) {
    throw bad('descriptor', 'a Resource descriptor');
  }
  if (
    meta?.tenant !== ref.tenant ||
    meta.environment !== ref.environment ||
    meta.name !== ref.name
  ) {
    throw bad(
      'descriptor.metadata',
      `the metadata of ${ref.tenant}/${ref.environment}/${ref.name}`,
    );
  }
  return d as ResourceDescriptor;
}
