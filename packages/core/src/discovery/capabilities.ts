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

/** Every capability false: what an undeclared field is granted. */
export function noCapabilities(): CapabilitySet {
  return {
    filterable: false,
    returnable: false,
    sortable: false,
    range: false,
    searchable: false,
    aggregatable: false,
  };
}

/** The capabilities a field spec declares, each true only when declared `true`. */
export function declaredCapabilities(spec: Partial<Record<Capability, unknown>>): CapabilitySet {
  const caps = noCapabilities();
  for (const capability of CAPABILITIES) caps[capability] = spec[capability] === true;
  return caps;
}
