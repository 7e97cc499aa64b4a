import type { Db } from 'mongodb';
import type { AgentDescriptor, PolicyDescriptor } from '@tollgate/core';
import { ensureIndexes } from '@tollgate/kit';
import { VersionedCollection } from './versioned.js';
import type { RowCodec, Stored } from './versioned.js';

/** The kinds the policy service stores. */
export type DeclarationKind = 'Agent' | 'Policy';

type DescriptorOf<K extends DeclarationKind> = K extends 'Agent'
  ? AgentDescriptor
  : PolicyDescriptor;

/** One immutable version of a declared Agent or Policy. */
export interface DeclarationRecord<K extends DeclarationKind = DeclarationKind> {
  kind: K;
  tenant: string;
  name: string;
  /** Counts up from 1 per name. */
  version: number;
  /** The version current before this one (0 for the first). */
  previousVersion: number;
  /** True for the tombstone a delete writes (it keeps the last descriptor). */
  deleted: boolean;
  /** Canonical hash of `descriptor`. */
  hash: string;
  descriptor: DescriptorOf<K>;
  /** For policies: the Cedar the policy compiled to when applied (empty for agents and tombstones). */
  cedar: string;
  createdAt: Date;
  /** The principal that made the version (`agent` or `agent/user`). */
  createdBy: string;
}

export type AgentRecord = DeclarationRecord<'Agent'>;
export type PolicyRecord = DeclarationRecord<'Policy'>;

/** Collection names per kind. */
export const DECLARATION_COLLECTIONS = {
  Agent: { heads: 'agents', versions: 'agent_versions' },
  Policy: { heads: 'policies', versions: 'policy_versions' },
} as const;

/**
 * Versioned Agent or Policy declarations of every tenant (one store per kind). Reads and
 * commits follow `VersionedCollection`: immutable versions, a head per name, and the version
 * insert as the compare-and-set.
 */
export class DeclarationStore<K extends DeclarationKind> {
  readonly kind: K;
  readonly #rows: VersionedCollection<DeclarationRecord<K>>;
  readonly #db: Db;

  constructor(db: Db, kind: K) {
    this.kind = kind;
    this.#db = db;
    this.#rows = new VersionedCollection(db, DECLARATION_COLLECTIONS[kind], declarationCodec(kind));
  }

  async ensureIndexes(): Promise<void> {
    const names = DECLARATION_COLLECTIONS[this.kind];
    await ensureIndexes(this.#db, {
      [names.heads]: [{ key: { tenant: 1, name: 1 }, name: 'tenant_name' }],
    });
  }

  /** The newest version (possibly a tombstone), or undefined for a name never applied. */
  current(tenant: string, name: string): Promise<DeclarationRecord<K> | undefined> {
    return this.#rows.current(declarationKey(tenant, name));
  }

  /** The newest version as of the last completed commit (one read). */
  head(tenant: string, name: string): Promise<DeclarationRecord<K> | undefined> {
    return this.#rows.head(declarationKey(tenant, name));
  }

  version(
    tenant: string,
    name: string,
    version: number,
  ): Promise<DeclarationRecord<K> | undefined> {
    return this.#rows.version(declarationKey(tenant, name), version);
  }

  /** False when another change committed that version first. */
  commit(record: DeclarationRecord<K>): Promise<boolean> {
    return this.#rows.commit(record, { settleHead: true });
  }

  /**
   * The newest version of every name in `tenant` as of the last completed commit (heads, see
   * `VersionedCollection.headsWhere`), tombstones included, sorted by name.
   */
  async currentIn(tenant: string): Promise<DeclarationRecord<K>[]> {
    const records = await this.#rows.headsWhere({ tenant });
    return records.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  }

  /** The live (not deleted) descriptors of `tenant`. */
  async liveIn(tenant: string): Promise<DeclarationRecord<K>[]> {
    return (await this.currentIn(tenant)).filter((r) => !r.deleted);
  }

  /** Whether anything of this kind was ever applied in `tenant`. */
  hasAny(tenant: string): Promise<boolean> {
    return this.#rows.exists({ tenant });
  }

  /** Every tenant with at least one declaration of this kind. */
  tenants(): Promise<string[]> {
    return this.#rows.distinct('tenant');
  }
}

export function declarationKey(tenant: string, name: string): string {
  return `${tenant}/${name}`;
}

function declarationCodec<K extends DeclarationKind>(kind: K): RowCodec<DeclarationRecord<K>> {
  return {
    key: (row) => declarationKey(row.tenant, row.name),
    toDocument: (id, row): Stored => ({
      _id: id,
      tenant: row.tenant,
      name: row.name,
      version: row.version,
      previousVersion: row.previousVersion,
      deleted: row.deleted,
      hash: row.hash,
      // JSON text: label keys may contain dots, which MongoDB-compatible stores refuse as keys.
      descriptor: JSON.stringify(row.descriptor),
      cedar: row.cedar,
      createdAt: row.createdAt,
      createdBy: row.createdBy,
    }),
    fromDocument: (doc) => readDeclaration(kind, doc),
  };
}

/** Reads a stored declaration version back, checking every field. */
export function readDeclaration<K extends DeclarationKind>(
  kind: K,
  doc: unknown,
): DeclarationRecord<K> {
  const d = (typeof doc === 'object' && doc !== null ? doc : {}) as Record<string, unknown>;
  const id = typeof d._id === 'string' ? d._id : '(no id)';
  const bad = (field: string, expected: string): Error =>
    new Error(`stored ${kind} version ${id} is malformed: ${field} is not ${expected}`);
  const text = (field: string, allowEmpty = false): string => {
    const value = d[field];
    if (typeof value !== 'string' || (!allowEmpty && value === ''))
      throw bad(field, 'a non-empty string');
    return value;
  };
  const count = (field: string, min: number): number => {
    const value = d[field];
    if (typeof value !== 'number' || !Number.isSafeInteger(value) || value < min)
      throw bad(field, `an integer of at least ${min}`);
    return value;
  };
  if (typeof d.deleted !== 'boolean') throw bad('deleted', 'a boolean');
  if (!(d.createdAt instanceof Date) || Number.isNaN(d.createdAt.getTime()))
    throw bad('createdAt', 'a date');
  const tenant = text('tenant');
  const name = text('name');
  let descriptor: unknown;
  try {
    descriptor = JSON.parse(text('descriptor'));
  } catch {
    throw bad('descriptor', 'JSON');
  }
  const meta = (descriptor as { metadata?: { tenant?: unknown; name?: unknown } } | null)?.metadata;
  if ((descriptor as { kind?: unknown } | null)?.kind !== kind)
    throw bad('descriptor', `a ${kind} descriptor`);
  if (meta?.tenant !== tenant || meta.name !== name)
    throw bad('descriptor.metadata', `the metadata of ${tenant}/${name}`);
  return {
    kind,
    tenant,
    name,
    version: count('version', 1),
    previousVersion: count('previousVersion', 0),
    deleted: d.deleted,
    hash: text('hash'),
    descriptor: descriptor as DescriptorOf<K>,
    cedar: text('cedar', true),
    createdAt: d.createdAt,
    createdBy: text('createdBy'),
  };
}
