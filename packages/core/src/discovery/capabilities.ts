import type { FieldType } from '../descriptor/types.js';
import { isNumericType, isOrderedType } from '../connector/field-rules.js';
import type { DiscoveredField } from './types.js';

/** The six capabilities a field can be granted. */
export const CAPABILITIES = [
  'filterable',
  'returnable',
  'sortable',
  'range',
  'searchable',
  'aggregatable',
] as const;
export type Capability = (typeof CAPABILITIES)[number];

export type CapabilitySet = Record<Capability, boolean>;

const NONE: CapabilitySet = {
  filterable: false,
  returnable: false,
  sortable: false,
  range: false,
  searchable: false,
  aggregatable: false,
};

/** What the field's mapping makes possible at all (an upper bound on what may be granted). */
export function supportedCapabilities(field: DiscoveredField): CapabilitySet {
  const query = field.indexed && field.nestedPath === undefined;
  const columnar = field.docValues && field.nestedPath === undefined;
  const caps: CapabilitySet = {
    ...NONE,
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
export function suggestedCapabilities(field: DiscoveredField): CapabilitySet {
  const caps = supportedCapabilities(field);
  if (field.type === 'object' || field.type === 'nested') return { ...caps, returnable: false };
  return caps;
}

/** Why `capability` is not supported on `field`, for an operator-facing message. */
export function unsupportedReason(field: DiscoveredField, capability: Capability): string {
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

function typeSupports(type: FieldType, capability: Capability): boolean {
  const probe: DiscoveredField = {
    path: '',
    type,
    nativeType: type,
    indexed: true,
    docValues: true,
    inSource: true,
  };
  return supportedCapabilities(probe)[capability];
}

/** Types that admit the same operators, so a declared/discovered difference is only a warning. */
export function typeFamily(type: FieldType): string {
  if (isNumericType(type)) return 'numeric';
  if (type === 'keyword' || type === 'ip') return 'term';
  return type;
}
