/**
 * Turning a partial descriptor (e.g. what a model extracted from a conversation) into a full
 * proposal: complete what the caller's scope implies, merge the schema with discovery, and
 * say what is still missing. Pure; the I/O (discovery) happens between the steps.
 */
import type { JsonObject } from '@bufbuild/protobuf';
import {
  API_VERSION,
  CAPABILITIES,
  applyDescriptorDefaults,
  descriptorInvalid,
  joinPath,
  mergeSchema,
  validateDescriptor,
} from '@tollgate/core';
import type {
  Capability,
  DescriptorProblem,
  DiscoveredField,
  DiscoveredSchema,
  FieldSpec,
  FieldType,
  JsonSchema,
  KindRegistry,
  ResourceKind,
  ResourceSpec,
} from '@tollgate/core';
import type { Scope } from './scope.js';
import type { Warning } from './warnings.js';

/** The kinds a proposal is read with (the registry's connectors). */
export type ProposalKinds = Pick<KindRegistry, 'find' | 'types'>;

/** A field discovery found, next to what the descriptor declared. */
export interface FieldReport {
  name: string;
  type: FieldType;
  nativeType: string;
  declared: boolean;
  /** The declared type, when discovery found another (discovery wins). */
  declaredType?: FieldType;
  searchable: boolean;
  aggregatable: boolean;
  /** For an undeclared field: what discovery suggests enabling (nothing is enabled). */
  proposedCapabilities: Capability[];
}

/** What discovery gave a proposal: a schema, why it failed, or why it was not attempted. */
export type DiscoveryOutcome =
  { schema: DiscoveredSchema } | { failed: string } | { skipped: string };

/** A full proposed descriptor and everything a person should know before confirming it. */
export interface Proposal {
  /** Complete (defaults applied) when nothing is missing; otherwise as far as it goes. */
  descriptor: JsonObject;
  fields: FieldReport[];
  /** Everything worth knowing, blocking findings and missing parts included. */
  warnings: Warning[];
  /** Required parts still to be supplied. */
  missing: DescriptorProblem[];
  /** Findings that stop the proposal from being saved as it is. */
  blocking: Warning[];
  confirmable: boolean;
}

/** The kind and spec discovery would read, once the descriptor names what it needs. */
export interface DiscoveryTarget {
  kind: ResourceKind;
  spec: ResourceSpec;
}

/**
 * The partial descriptor with what the caller's scope implies filled in where absent:
 * apiVersion, kind Resource, the caller's tenant and environment, and `spec.type` when the
 * build has a single kind.
 */
export function completeEnvelope(
  partial: JsonObject,
  scope: Scope,
  kinds: ProposalKinds,
): JsonObject {
  const candidate = structuredClone(partial);
  candidate.apiVersion ??= API_VERSION;
  candidate.kind ??= 'Resource';
  candidate.metadata ??= {};
  if (isObject(candidate.metadata)) {
    candidate.metadata.tenant ??= scope.tenant;
    candidate.metadata.environment ??= scope.environment;
  }
  candidate.spec ??= {};
  const [only, ...others] = kinds.types();
  if (isObject(candidate.spec) && only !== undefined && others.length === 0)
    candidate.spec.type ??= only;
  return candidate;
}

/**
 * Validates a completed partial descriptor. Missing required parts are returned (a
 * conversation may still supply them) unless they are among `required`; anything malformed,
 * and required parts that are missing, are rejected with every problem listed.
 */
export function checkPartial(
  candidate: JsonObject,
  required: readonly string[],
  kinds: ProposalKinds,
): DescriptorProblem[] {
  const result = validateDescriptor(candidate, kinds);
  if (result.ok) return [];
  const missing = result.problems.filter(isMissing);
  const rejected = [
    ...result.problems.filter((p) => !isMissing(p)),
    // A required path is missing when it, a part of it, or what holds it is missing.
    ...missing.filter((p) =>
      required.some(
        (r) => p.path === r || p.path.startsWith(`${r}.`) || r.startsWith(`${p.path}.`),
      ),
    ),
  ];
  if (rejected.length > 0) throw descriptorInvalid(rejected);
  if (candidate.kind !== 'Resource') {
    throw descriptorInvalid([
      {
        path: 'kind',
        message: 'expected Resource (only resources are drafted and discovered)',
        expected: 'Resource',
      },
    ]);
  }
  return missing;
}

/** Paths discovery needs for the candidate's kind (Discover rejects a descriptor without them). */
export function discoveryPaths(candidate: JsonObject, kinds: ProposalKinds): readonly string[] {
  const kind = kindOf(candidate, kinds);
  return kind === undefined ? ['spec.type'] : kind.discoveryPaths;
}

/** The kind and spec to discover, when the descriptor names everything its kind needs. */
export function discoveryTarget(
  candidate: JsonObject,
  kinds: ProposalKinds,
): DiscoveryTarget | undefined {
  const kind = kindOf(candidate, kinds);
  if (kind === undefined) return undefined;
  if (!kind.discoveryPaths.every((path) => valueAt(candidate, path) !== undefined))
    return undefined;
  return { kind, spec: candidate.spec as unknown as ResourceSpec };
}

function kindOf(candidate: JsonObject, kinds: ProposalKinds): ResourceKind | undefined {
  const spec = isObject(candidate.spec) ? candidate.spec : {};
  return typeof spec.type === 'string' ? kinds.find(spec.type) : undefined;
}

function valueAt(root: JsonObject, path: string): unknown {
  let node: unknown = root;
  for (const key of path.split('.')) {
    if (!isObject(node) || !Object.hasOwn(node, key)) return undefined;
    node = node[key];
  }
  return node;
}

/** Merges discovery into the candidate and reports what it found and what is missing. */
export function composeProposal(
  candidate: JsonObject,
  discovery: DiscoveryOutcome,
  kinds: ProposalKinds,
): Proposal {
  const descriptor = structuredClone(candidate);
  const kind = kindOf(candidate, kinds);
  const declared = declaredFields(descriptor);
  const warnings: Warning[] = [];
  const blocking: Warning[] = [];
  let fields: FieldReport[] = [];
  if ('schema' in discovery) {
    const merged = mergeSchema(
      declared,
      discovery.schema,
      (type) => kind?.fieldFamily(type) ?? type,
    );
    setFields(descriptor, merged.fields);
    for (const { path, value } of discovery.schema.specValues ?? [])
      setSpecValue(descriptor, path, value);
    for (const issue of merged.issues) {
      const path =
        issue.field === undefined ? 'spec.target' : joinPath('spec.schema.fields', issue.field);
      (issue.severity === 'error' ? blocking : warnings).push({
        code: issue.code.toUpperCase(),
        path,
        message: issue.message,
      });
    }
    fields = discovery.schema.fields.map((field) => reportField(field, declared, merged.proposed));
    const undeclared = fields.filter((field) => !field.declared).map((field) => field.name);
    if (undeclared.length > 0) warnings.push(notEnabled(undeclared));
  } else {
    const code = 'failed' in discovery ? 'DISCOVERY_FAILED' : 'NOT_DISCOVERED';
    const message = 'failed' in discovery ? discovery.failed : discovery.skipped;
    warnings.push({ code, path: 'spec.target', message });
  }
  const result = validateDescriptor(descriptor, kinds);
  const problems = result.ok ? [] : result.problems;
  const missing = problems.filter(isMissing);
  for (const problem of problems.filter((p) => !isMissing(p))) {
    blocking.push({ code: 'DESCRIPTOR_INVALID', path: problem.path, message: problem.message });
  }
  for (const problem of missing)
    warnings.push({
      code: 'INPUT_NEEDED',
      path: problem.path,
      message: neededMessage(problem, kind),
    });
  return {
    descriptor: result.ok
      ? (applyDescriptorDefaults(result.descriptor, kinds) as unknown as JsonObject)
      : descriptor,
    fields,
    warnings: [...blocking, ...warnings],
    missing,
    blocking,
    confirmable: problems.length === 0 && blocking.length === 0,
  };
}

function reportField(
  field: DiscoveredField,
  declared: Record<string, FieldSpec>,
  proposed: Record<string, FieldSpec>,
): FieldReport {
  const declaredSpec = Object.hasOwn(declared, field.path) ? declared[field.path] : undefined;
  const suggestion = Object.hasOwn(proposed, field.path) ? proposed[field.path] : undefined;
  const supported = field.supported;
  return {
    name: field.path,
    type: field.type,
    nativeType: field.nativeType,
    declared: declaredSpec !== undefined,
    ...(declaredSpec !== undefined && declaredSpec.type !== field.type
      ? { declaredType: declaredSpec.type }
      : {}),
    searchable: supported.searchable,
    aggregatable: supported.aggregatable,
    proposedCapabilities:
      suggestion === undefined ? [] : CAPABILITIES.filter((c) => suggestion[c] === true),
  };
}

function notEnabled(names: string[]): Warning {
  const shown =
    names.length > 20
      ? `${names.slice(0, 20).join(', ')}, … (${names.length - 20} more)`
      : names.join(', ');
  return {
    code: 'FIELDS_NOT_ENABLED',
    path: 'spec.schema.fields',
    message:
      `Discovery found ${names.length} field(s) the descriptor does not declare: ${shown}. ` +
      'They are included with every capability off; enable the proposed capabilities by editing the draft.',
  };
}

/** What to say is still needed at the envelope's paths; a kind's own paths use its schema. */
const NEEDED: Record<string, string> = {
  'spec.access':
    'who may use the resource: spec.access.allowedRoles (and optionally maxLimit, fieldRoles, redact)',
  'spec.access.allowedRoles': 'the roles that may use the resource',
  'spec.schema':
    'the fields to expose (discovery fills them in once the connection and target are known)',
  'spec.type': 'which kind of data system the resource is',
  'metadata.name': 'a resource name such as orders',
};

function neededMessage(problem: DescriptorProblem, kind: ResourceKind | undefined): string {
  const described =
    NEEDED[problem.path] ??
    (kind === undefined ? undefined : specDescriptionAt(kind.specSchema, problem.path));
  return `Still needed: ${described ?? `${problem.path} (${problem.expected ?? 'a value'})`}.`;
}

/** The description the kind's spec schema gives the property at a descriptor path. */
function specDescriptionAt(schema: JsonSchema, path: string): string | undefined {
  const segments = path.split('.');
  if (segments.shift() !== 'spec') return undefined;
  const definitions = (isObject(schema.definitions) ? schema.definitions : {}) as JsonObject;
  const resolve = (node: unknown): JsonObject | undefined => {
    let current = node;
    for (let hops = 0; isObject(current) && typeof current.$ref === 'string' && hops < 10; hops++) {
      const name = current.$ref.replace(/^#\/definitions\//, '');
      current = definitions[name];
    }
    return isObject(current) ? current : undefined;
  };
  let node = resolve(schema);
  let description: string | undefined;
  for (const segment of segments) {
    const properties = node?.properties;
    const child = isObject(properties) ? properties[segment] : undefined;
    if (!isObject(child)) return undefined;
    description = typeof child.description === 'string' ? child.description : undefined;
    node = resolve(child);
    description ??= typeof node?.description === 'string' ? node.description : undefined;
  }
  return description?.replace(/[.\s]+$/, '');
}

function isMissing(problem: DescriptorProblem): boolean {
  return problem.found === 'nothing' && problem.message.startsWith('required key missing');
}

function declaredFields(descriptor: JsonObject): Record<string, FieldSpec> {
  const spec = descriptor.spec;
  const schema = isObject(spec) ? spec.schema : undefined;
  const fields = isObject(schema) ? schema.fields : undefined;
  return isObject(fields) ? (fields as unknown as Record<string, FieldSpec>) : {};
}

/** Writes a value discovery is authoritative for into the spec, creating objects on the way. */
function setSpecValue(descriptor: JsonObject, path: readonly string[], value: unknown): void {
  if (!isObject(descriptor.spec)) descriptor.spec = {};
  let node = descriptor.spec as JsonObject;
  for (const key of path.slice(0, -1)) {
    if (!isObject(node[key]) || !Object.hasOwn(node, key)) node[key] = {};
    node = node[key] as JsonObject;
  }
  const last = path.at(-1);
  if (last !== undefined) node[last] = structuredClone(value) as JsonObject[string];
}

function setFields(descriptor: JsonObject, fields: Record<string, FieldSpec>): void {
  if (!isObject(descriptor.spec)) return;
  const schema = isObject(descriptor.spec.schema) ? descriptor.spec.schema : {};
  descriptor.spec.schema = { ...schema, fields: fields as unknown as JsonObject };
}

function isObject(value: unknown): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
