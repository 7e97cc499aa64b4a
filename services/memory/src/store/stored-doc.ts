/**
 * Reading documents back from MongoDB without trusting their shape: every field is checked and
 * a malformed document fails with the collection, id and field it is about.
 */
import type { Actor, JsonValue, Owner } from '../types.js';

/** A stored document that does not have the shape the service wrote. */
export class CorruptDocumentError extends Error {
  constructor(collection: string, id: unknown, problem: string) {
    super(`${collection} document ${JSON.stringify(id)} is malformed: ${problem}`);
    this.name = 'CorruptDocumentError';
  }
}

type Doc = Record<string, unknown>;

/** Typed, checked access to one stored document's fields. */
export class StoredDoc {
  constructor(
    readonly collection: string,
    readonly doc: Doc,
  ) {}

  fail(problem: string): never {
    throw new CorruptDocumentError(this.collection, this.doc['_id'], problem);
  }

  string(key: string): string {
    const value = this.doc[key];
    if (typeof value !== 'string') this.fail(`${key} is not a string`);
    return value;
  }

  number(key: string): number {
    const value = this.doc[key];
    if (typeof value !== 'number' || !Number.isFinite(value)) this.fail(`${key} is not a number`);
    return value;
  }

  date(key: string): Date {
    const value = this.doc[key];
    if (!(value instanceof Date)) this.fail(`${key} is not a date`);
    return value;
  }

  optionalDate(key: string): Date | undefined {
    return this.doc[key] === undefined || this.doc[key] === null ? undefined : this.date(key);
  }

  oneOf<T extends string>(key: string, values: readonly T[]): T {
    const value = this.string(key);
    if (!(values as readonly string[]).includes(value))
      this.fail(`${key} is ${JSON.stringify(value)}`);
    return value as T;
  }

  strings(key: string): string[] {
    const value = this.doc[key];
    if (!Array.isArray(value) || !value.every((item) => typeof item === 'string')) {
      this.fail(`${key} is not a list of strings`);
    }
    return value as string[];
  }

  /** A JSON value stored as text (so arbitrary keys never meet Mongo's key rules). */
  json(key: string): JsonValue {
    const text = this.string(key);
    try {
      return JSON.parse(text) as JsonValue;
    } catch {
      return this.fail(`${key} is not JSON text`);
    }
  }

  jsonObject(key: string): Record<string, JsonValue> {
    const value = this.json(key);
    if (value === null || typeof value !== 'object' || Array.isArray(value)) {
      this.fail(`${key} is not a JSON object`);
    }
    return value;
  }

  actor(key: string): Actor {
    const value = this.doc[key];
    if (value === null || typeof value !== 'object') this.fail(`${key} is not an actor`);
    const { agent, user } = value as Doc;
    if (typeof agent !== 'string' || typeof user !== 'string') this.fail(`${key} is not an actor`);
    return { agent, user };
  }

  optionalActor(key: string): Actor | undefined {
    return this.doc[key] === undefined || this.doc[key] === null ? undefined : this.actor(key);
  }

  owner(): Owner {
    return {
      tenant: this.string('tenant'),
      agent: this.string('agent'),
      user: this.string('user'),
    };
  }

  /** A nested document, checked the same way. */
  nested(key: string, index?: number): StoredDoc {
    const value = index === undefined ? this.doc[key] : (this.doc[key] as unknown[])[index];
    if (value === null || typeof value !== 'object' || Array.isArray(value)) {
      this.fail(`${key}${index === undefined ? '' : `[${index}]`} is not a document`);
    }
    return new StoredDoc(this.collection, { _id: this.doc['_id'], ...(value as Doc) });
  }

  list(key: string): StoredDoc[] {
    const value = this.doc[key];
    if (!Array.isArray(value)) this.fail(`${key} is not a list`);
    return value.map((_, index) => this.nested(key, index));
  }
}
