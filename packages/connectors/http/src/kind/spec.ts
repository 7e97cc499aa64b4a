/**
 * The `spec` of an http resource: an HTTP API described by an OpenAPI 3.0/3.1 document, of
 * which the operator selects operations by `operationId`. These types are the source of truth
 * for the kind's published schema (`schema/spec.schema.json`, `pnpm gen:schema`).
 */
import type { AccessSpec, Description } from '@tollgate/core';

/** Types of request and response properties, read from the document's JSON Schemas. */
export type HttpFieldType =
  'string' | 'integer' | 'number' | 'boolean' | 'object' | 'array' | 'any';

/**
 * A request or response property. For this kind `filterable` means the agent may send it
 * (a path, query or header parameter, or a top-level body property); `returnable` means it may
 * come back in the records of a response.
 */
export interface HttpField {
  type: HttpFieldType;
  description?: Description;
  /** May be set in a request (parameter or body property). */
  filterable?: boolean;
  /** May be returned to the agent. */
  returnable?: boolean;
  /** Not offered by this kind (an API sorts, ranges and searches through its own parameters). */
  sortable?: false;
  /** Not offered by this kind. */
  range?: false;
  /** Not offered by this kind. */
  searchable?: false;
  /** Not offered by this kind. */
  aggregatable?: false;
}

/** How the credential from `credentialRef` is sent. */
export type HttpAuth =
  | { scheme: 'none' }
  /** `Authorization: Bearer <token>` (a token or API-key secret). */
  | { scheme: 'bearer' }
  /** `Authorization: Basic …` from a `{username, password}` secret. */
  | { scheme: 'basic' }
  /** An API-key secret in a header or query parameter of this name. */
  | {
      scheme: 'apiKey';
      in: 'header' | 'query';
      /**
       * @pattern ^[A-Za-z0-9_-]{1,64}$
       */
      name: string;
    }
  /**
   * OAuth2 client credentials: the `{username: client id, password: client secret}` secret is
   * exchanged at `tokenUrl` (same host as the base URL) for a bearer token, cached until it expires.
   */
  | {
      scheme: 'oauth2';
      /** @minLength 1 */
      tokenUrl: string;
      /** @maxItems 20 */
      scopes?: string[];
    };

export interface HttpConnection {
  /**
   * The API's base URL, http(s), without user info: `https://tickets.internal/api`. Requests go
   * only to its host and port; private, loopback and link-local addresses only when it is one.
   * @minLength 1
   */
  baseUrl: string;
  /**
   * Where the credential lives: `env://VAR_NAME`, `file:///abs/path`, `file://relative/path`
   * or `vault://mount/path[#key]`; never a literal secret.
   * @minLength 1
   */
  credentialRef?: string;
  /** How the credential is sent (default bearer when a credentialRef is given). */
  auth?: HttpAuth;
  /**
   * Upstream timeout per call, ms (default 5000).
   * @asType integer
   * @minimum 100
   * @maximum 300000
   */
  timeoutMs?: number;
  /**
   * Largest response body accepted, bytes (default 1048576); reading stops beyond it.
   * @asType integer
   * @minimum 1024
   * @maximum 16777216
   */
  maxResponseBytes?: number;
}

/** Where the OpenAPI document is: a path on the API (or absolute URL on its host). */
export interface HttpDocument {
  /**
   * `/server/specs/oas` (relative to the base URL's origin) or an absolute URL on the same host.
   * @minLength 1
   * @maxLength 2000
   */
  url: string;
}

/** An HTTP method an operation may use. */
export type HttpMethod = 'get' | 'put' | 'post' | 'patch' | 'delete' | 'head' | 'options';

/** A parameter of an operation, as the document declares it (refs resolved). */
export interface HttpParameter {
  /** @pattern ^[A-Za-z0-9_.-]{1,64}$ */
  name: string;
  in: 'path' | 'query' | 'header';
  /** The document's `required` (always true for a path parameter). */
  mandatory: boolean;
  /** Array values joined with commas (`explode: false`) instead of repeated. */
  explode?: boolean;
  /** JSON Schema of the value (draft 2020-12, converted from the document). */
  schema: Record<string, unknown>;
  description?: Description;
}

/** The request an operation takes, as the document declares it. */
export interface HttpRequestShape {
  method: HttpMethod;
  /**
   * The path template under the base URL, `/items/tickets/{id}`.
   * @pattern ^/[^?#\s]*$
   */
  path: string;
  parameters: HttpParameter[];
  /**
   * The JSON body: an object schema (its properties are arguments under `body`). `asList`: the
   * document takes one record or a list of them and answers with a list, so one record is sent
   * as a list of one (the answer then matches the declared response).
   */
  body?: { mandatory: boolean; schema: Record<string, unknown>; asList?: boolean };
}

/** A declared response: content type and JSON Schema of the body. */
export interface HttpResponseShape {
  /** `application/json`, or absent for a response without a body. */
  contentType?: string;
  schema?: Record<string, unknown>;
}

/** How an operation pages; Tollgate turns it into its own opaque cursor. */
export type HttpPagination =
  /** Query parameters for page size and offset (`limit`, `offset`). */
  | { style: 'offset'; limitParam: string; offsetParam: string }
  /** Query parameters for page size and page number, from 1. */
  | { style: 'page'; limitParam: string; pageParam: string }
  /** A cursor the upstream returns at a JSON pointer, sent back in a query parameter. */
  | { style: 'cursor'; limitParam: string; cursorParam: string; nextPointer: string }
  /**
   * The next page's URL in a `Link: <…>; rel="next"` header (RFC 8288). It is followed only on
   * the request's own origin and path, and only for query parameters the request did not set:
   * every value the agent or the operator set stays as it was.
   */
  | { style: 'link'; limitParam: string };

/**
 * One selected operation. `operationId` selects it in the document; `request` and `responses`
 * are the document's view of it, written by discovery (a changed document is a diff to confirm).
 */
export interface HttpOperation {
  /**
   * @minLength 1
   * @maxLength 200
   */
  operationId: string;
  /** Read, write or destructive: defaults from the method; may only be made stricter. */
  class?: 'read' | 'write' | 'destructive';
  description?: Description;
  /** Values the operator fixes: argument name (or `body.<property>`) → value; never offered. */
  pinned?: Record<string, unknown>;
  /**
   * JSON pointer to the records in a successful response body (`/data`), `""` for the body.
   * @pattern ^(/[^/]*)*$
   */
  records?: string;
  pagination?: HttpPagination;
  /**
   * Upstream timeout for this operation, ms (within the connection's and the call's deadline).
   * @asType integer
   * @minimum 100
   * @maximum 300000
   */
  timeoutMs?: number;
  request?: HttpRequestShape;
  /** By status code (`200`, `2XX`, `default`). */
  responses?: Record<string, HttpResponseShape>;
}

/** Declared properties, keyed by name. */
export interface HttpSchema {
  fields: Record<string, HttpField>;
}

/** Operations of an HTTP API described by OpenAPI. */
export interface HttpSpec {
  /** The resource kind. */
  type: 'http';
  connection: HttpConnection;
  document: HttpDocument;
  /**
   * Selected operations by tool operation name (`list_tickets`); nothing else is exposed.
   * @propertyNames {"pattern": "^[a-z][a-z0-9_]{0,62}$"}
   */
  operations: Record<string, HttpOperation>;
  /** Merged with what discovery finds; discovery wins on types. */
  schema: HttpSchema;
  access: AccessSpec;
}

/** The spec of a validated http resource. */
export function httpSpec(descriptor: { spec: unknown }): HttpSpec {
  return descriptor.spec as HttpSpec;
}
