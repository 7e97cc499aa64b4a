/**
 * What a mapped field makes possible: the capabilities its mapping supports, what discovery
 * proposes for it, and why a capability is not supported — turned into core's
 * `DiscoveredField`, which the kind-neutral merge reads.
 */
import { CAPABILITIES, noCapabilities } from '@tollgate/core';
import type { Capability, CapabilitySet, DiscoveredField } from '@tollgate/core';

import { fieldFamily, isOrderedType } from '../kind/model.js';
import type { ElasticsearchFieldType } from '../kind/spec.js';

/** One field as an index maps it, flattened to a dotted path. */
export interface MappedField {
  /** Dotted path, e.g. `customer.email`, or `title.keyword` for a multi-field. */
  path: string;
  type: ElasticsearchFieldType;
  /** The type as the mapping names it (`date_nanos`, `match_only_text`, …). */
  nativeType: string;
  /** Date format as mapped (Elasticsearch's default when the mapping sets none). */
  format?: string;
  /** `scaled_float` scaling factor. */
  scalingFactor?: number;
  /** For a multi-field such as `title.keyword`: its parent field (`title`). */
  multiFieldOf?: string;
  /** Path of the enclosing `nested` field, when inside one. */
  nestedPath?: string;
  /** Queryable (mapping `index` is not false). */
  indexed: boolean;
  /** Sortable/aggregatable storage (mapping `doc_values` is not false). */
  docValues: boolean;
  /** Present in stored documents, so it can be returned (false for multi-fields). */
  inSource: boolean;
}

/** What the field's mapping makes possible at all (an upper bound on what may be granted). */
export function supportedCapabilities(field: MappedField): CapabilitySet {
  const query = field.indexed && field.nestedPath === undefined;
  const columnar = field.docValues && field.nestedPath === undefined;
  const caps: CapabilitySet = {
    ...noCapabilities(),
    returnable: field.inSource && field.multiFieldOf === undefined,
  };
  if (field.type === 'keyword' || field.type === 'ip' || field.type === 'boolean') {
    return { ...caps, filterable: query, sortable: columnar, aggregatable: columnar };
  }
  if (isOrderedType(field.type)) {
    return { ...caps, filterable: query, range: query, sortable: columnar, aggregatable: columnar };
  }
  if (field.type === 'text') return { ...caps, searchable: query };
  return caps;
}

/**
 * What discovery proposes for a field nobody declared yet: everything the mapping supports,
 * except returning whole objects (their subfields are proposed one by one instead).
 */
export function suggestedCapabilities(field: MappedField): CapabilitySet {
  const caps = supportedCapabilities(field);
  if (field.type === 'object' || field.type === 'nested') return { ...caps, returnable: false };
  return caps;
}

/** Why `capability` is not supported on `field`, for an operator-facing message. */
export function unsupportedReason(field: MappedField, capability: Capability): string {
  if (capability === 'returnable') {
    if (field.multiFieldOf !== undefined) {
      return `it is a multi-field of "${field.multiFieldOf}" and not stored in documents`;
    }
    return 'it is not stored in documents (_source is disabled)';
  }
  if (field.nestedPath !== undefined) {
    return `it is inside nested field "${field.nestedPath}", and nested queries are not supported yet`;
  }
  const usesIndex =
    capability === 'filterable' || capability === 'range' || capability === 'searchable';
  if (usesIndex && !field.indexed && typeSupports(field.type, capability))
    return 'it is not indexed';
  if (!usesIndex && !field.docValues && typeSupports(field.type, capability)) {
    return 'its doc_values are disabled';
  }
  return `${field.type} fields do not support it`;
}

function typeSupports(type: ElasticsearchFieldType, capability: Capability): boolean {
  const probe: MappedField = {
    path: '',
    type,
    nativeType: type,
    indexed: true,
    docValues: true,
    inSource: true,
  };
  return supportedCapabilities(probe)[capability];
}

/** The mapped field in core's kind-neutral terms. */
export function toDiscoveredField(field: MappedField): DiscoveredField {
  const supported = supportedCapabilities(field);
  const unsupportedReasons: Partial<Record<Capability, string>> = {};
  for (const capability of CAPABILITIES) {
    if (!supported[capability])
      unsupportedReasons[capability] = unsupportedReason(field, capability);
  }
  const notes = [
    ...(field.multiFieldOf === undefined ? [] : [`multi-field of ${field.multiFieldOf}`]),
    ...(field.nestedPath === undefined ? [] : [`inside nested ${field.nestedPath}`]),
    ...(field.indexed ? [] : ['not indexed']),
  ];
  return {
    path: field.path,
    type: field.type,
    nativeType: field.nativeType,
    ...(field.format === undefined ? {} : { attributes: { format: field.format } }),
    supported,
    suggested: suggestedCapabilities(field),
    unsupportedReasons,
    family: fieldFamily(field.type),
    ...(notes.length > 0 ? { notes } : {}),
  };
}
