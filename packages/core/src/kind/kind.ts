/**
 * A resource kind as a plug-in: everything Tollgate knows about one kind of data system comes
 * from the object its folder (`packages/connectors/<kind>/`) exports, and the product is the
 * list of those objects. Core and the services read kinds only through this contract; no file
 * outside a kind's folder names the kind or its vocabulary.
 *
 * A `ResourceKind` is the pure half (what can be declared, which operations and tools a
 * resource offers) that the CLI, the SDK and the console need too; a `Connector` adds the
 * controlled path to the data system that only services run.
 */
import type { DescriptorProblem } from '../descriptor/problems.js';
import type { ResourceDescriptor, ResourceSpec } from '../descriptor/types.js';
import type { ResolvedOptions } from '../synthesis/limits.js';
import type { JsonSchema, PermissionSet, VersionedResource } from '../tools/types.js';
import type { OperationSpec } from './operation.js';

/** A credential reference a spec names, and where (for namespace checks and messages). */
export interface CredentialUse {
  /** Descriptor path, e.g. `spec.connection.credentialRef`. */
  path: string;
  ref: string;
}

/** A network address a spec connects to, and where it is named (for egress rules). */
export interface EndpointUse {
  /** Descriptor path, e.g. `spec.connection.endpoint`. */
  path: string;
  /** An absolute URL (`http://es.internal:9200`, `tcp://db.internal:5432`). */
  url: string;
}

/** What one operation's tool offers a principal: its argument schema and description. */
export interface ToolOffer {
  /** JSON Schema 2020-12, `additionalProperties: false` at every level. */
  inputSchema: JsonSchema;
  /** What the resource holds, when to use the tool and when a sibling fits better. */
  description: string;
}

/** Everything a kind may look at to offer tools. Pure data. */
export interface ToolRequest {
  resource: VersionedResource;
  /** Normalized and narrowed to what the descriptor declares. */
  permissions: PermissionSet;
  limits: ResolvedOptions;
  /** The operations to offer tools for: declared by the kind and granted, in tool order. */
  operations: readonly OperationSpec[];
  /** The tool name of each of those operations (tools may name their siblings). */
  toolNames: ReadonlyMap<string, string>;
}

/** The pure half of a kind. */
export interface ResourceKind<Spec extends ResourceSpec = ResourceSpec> {
  /** The `spec.type` that selects this kind (a lowercase word). */
  readonly type: string;
  /** What one resource of the kind is, for people, before its target (`Search index`). */
  readonly title: string;
  /**
   * Strict JSON Schema (draft-07, `additionalProperties: false`) of `spec` for this kind; the
   * published descriptor schema is the union of these. Definitions live under `definitions`.
   */
  readonly specSchema: JsonSchema;
  /**
   * Rules beyond the schema on a possibly malformed Resource (field types against capabilities,
   * formats, access entries naming declared fields); paths from the descriptor root.
   */
  specRules(descriptor: unknown): DescriptorProblem[];
  /** Fills the kind's documented defaults into a copy's spec (the descriptor is valid). */
  applyDefaults(spec: Spec): void;
  /** Credential references the spec names (called on partial specs too: what is there). */
  credentialRefs(spec: Partial<Spec>): CredentialUse[];
  /** Network addresses the spec connects to (called on partial specs too: what is there). */
  endpoints(spec: Partial<Spec>): EndpointUse[];
  /**
   * The target in a few words, read after the title: `"orders" at http://es.internal:9200`.
   * Called on partial specs too (a draft in conversation): missing parts read `(not given)`.
   */
  describeTarget(spec: Partial<Spec>): string;
  /** Descriptor paths discovery needs (`spec.connection.endpoint`, …): present, it can run. */
  readonly discoveryPaths: readonly string[];
  /** Field types that admit the same operators share a family (a mismatch is then a warning). */
  fieldFamily(type: string): string;
  /** The operations a resource version offers, in tool order (writes only when not read-only). */
  operations(descriptor: ResourceDescriptor<Spec>): OperationSpec[];
  /**
   * The tools of the requested operations for one permission set, by operation name; an
   * operation the permissions leave nothing to do for is left out. Pure and deterministic.
   */
  offerTools(request: ToolRequest): ReadonlyMap<string, ToolOffer>;
  /**
   * The rule-based reading of a sentence that describes a resource of this kind, as a partial
   * descriptor (the scripted stand-in for a model uses it; a real model fills the schema);
   * undefined when the text is not about this kind.
   */
  readFromText?(text: string): Record<string, unknown> | undefined;
}
