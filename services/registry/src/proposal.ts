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
  supportedCapabilities,
  validateDescriptor,
} from '@tollgate/core';
import type {
  Capability,
  DescriptorProblem,
  DiscoveredField,
  DiscoveredSchema,
  FieldSpec,
  FieldType,
  ResourceSpec,
} from '@tollgate/core';
import type { Scope } from './scope.js';
import type { Warning } from './warnings.js';

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

/** Where discovery would connect, once the descriptor names it. */
export interface DiscoveryTarget {
  type: string;
  connection: ResourceSpec['connection'];
  target: ResourceSpec['target'];
}

/**
 * The partial descriptor with what the caller's scope implies filled in where absent:
 * apiVersion, kind Resource, the caller's tenant and environment, type elasticsearch.
 */
export function completeEnvelope(partial: JsonObject, scope: Scope): JsonObject {
  const candidate = structuredClone(partial);
  candidate.apiVersion ??= API_VERSION;
  candidate.kind ??= 'Resource';
  candidate.metadata ??= {};
  if (isObject(candidate.metadata)) {
    candidate.metadata.tenant ??= scope.tenant;
    candidate.metadata.environment ??= scope.environment;
  }
  candidate.spec ??= {};
  if (isObject(candidate.spec)) candidate.spec.type ??= 'elasticsearch';
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
): DescriptorProblem[] {
  const result = validateDescriptor(candidate);
  if (result.ok) return [];
  const missing = result.problems.filter(isMissing);
  const rejected = [
    ...result.problems.filter((p) => !isMissing(p)),
    ...missing.filter((p) => required.some((r) => p.path === r || p.path.startsWith(`${r}.`))),
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

/** Paths discovery needs; Discover rejects a descriptor without them. */
export const DISCOVERY_PATHS = ['spec.connection', 'spec.target'] as const;

/** The connection and target to discover, when the descriptor names both. */
export function discoveryTarget(candidate: JsonObject): DiscoveryTarget | undefined {
  const spec = isObject(candidate.spec) ? candidate.spec : {};
  const { connection, target, type } = spec;
  if (!isObject(connection) || typeof connection.endpoint !== 'string') return undefined;
  if (!isObject(target) || typeof target.index !== 'string') return undefined;
  return {
    type: String(type),
    connection: connection as unknown as ResourceSpec['connection'],
    target: target as unknown as ResourceSpec['target'],
  };
}

/** Merges discovery into the candidate and reports what it found and what is missing. */
export function composeProposal(candidate: JsonObject, discovery: DiscoveryOutcome): Proposal {
  const descriptor = structuredClone(candidate);
  const declared = declaredFields(descriptor);
  const warnings: Warning[] = [];
  const blocking: Warning[] = [];
  let fields: FieldReport[] = [];
  if ('schema' in discovery) {
    const merged = mergeSchema(declared, discovery.schema);
    setFields(descriptor, merged.fields);
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
  const result = validateDescriptor(descriptor);
  const problems = result.ok ? [] : result.problems;
  const missing = problems.filter(isMissing);
  for (const problem of problems.filter((p) => !isMissing(p))) {
    blocking.push({ code: 'DESCRIPTOR_INVALID', path: problem.path, message: problem.message });
  }
  for (const problem of missing)
    warnings.push({ code: 'INPUT_NEEDED', path: problem.path, message: neededMessage(problem) });
  return {
    descriptor: result.ok
      ? (applyDescriptorDefaults(result.descriptor) as unknown as JsonObject)
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
  const supported = supportedCapabilities(field);
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

const NEEDED: Record<string, string> = {
  'spec.access':
    'who may use the resource: spec.access.allowedRoles (and optionally maxLimit, fieldRoles, redact)',
  'spec.access.allowedRoles': 'the roles that may use the resource',
  'spec.connection':
    'where the data lives: spec.connection.endpoint (and a credentialRef if it needs one)',
  'spec.connection.endpoint': 'the URL of the data system, e.g. http://es.internal:9200',
  'spec.target': 'what to expose: spec.target.index',
  'spec.target.index': 'the index, alias or pattern to expose',
  'spec.schema':
    'the fields to expose (discovery fills them in once connection and target are known)',
  'metadata.name': 'a resource name such as es_orders',
};

function neededMessage(problem: DescriptorProblem): string {
  return `Still needed: ${NEEDED[problem.path] ?? `${problem.path} (${problem.expected ?? 'a value'})`}.`;
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

function setFields(descriptor: JsonObject, fields: Record<string, FieldSpec>): void {
  if (!isObject(descriptor.spec)) return;
  const schema = isObject(descriptor.spec.schema) ? descriptor.spec.schema : {};
  descriptor.spec.schema = { ...schema, fields: fields as unknown as JsonObject };
}

function isObject(value: unknown): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
