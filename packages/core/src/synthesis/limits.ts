/**
 * Bounds and layout choices written into every synthesized schema. They are part of the tool:
 * changing one changes the schema, so the executor must use the same options as the
 * synthesizer (`ToolValidatorCache` keys on them).
 */
export interface SynthesisLimits {
  /** Longest string value in a filter (`eq`, `in` items, `match`) and in an exact value written. */
  maxStringLength: number;
  /** Most values in one `in` filter. */
  maxInValues: number;
  /** Most filters in one call. */
  maxFilters: number;
  /** Most sort keys in one call. */
  maxSortKeys: number;
  /** Most buckets a `terms` aggregation may ask for. */
  maxBuckets: number;
  /** Longest document id. */
  maxIdLength: number;
  /** Longest paging cursor. */
  maxCursorLength: number;
  /** Longest text field value in a written document. */
  maxTextLength: number;
}

/**
 * How filter branches are laid out. `grouped` (default): fields sharing operators and value
 * type share a branch, `field` an enum — the same constraints as `per_field` in about two
 * thirds of the tokens (every listed tool is paid for on every model call; test/bench
 * mcp-tokens). `per_field`: one branch per field and operator group, `field` a const.
 */
export type FilterLayout = 'per_field' | 'grouped';

/** Options of `synthesizeTools`; every limit defaults to `DEFAULT_LIMITS`. */
export type SynthesisOptions = Partial<SynthesisLimits> & { filterLayout?: FilterLayout };

/** Options with every default filled in. */
export type ResolvedOptions = SynthesisLimits & { filterLayout: FilterLayout };

export const DEFAULT_LIMITS: Readonly<SynthesisLimits> = Object.freeze({
  maxStringLength: 256,
  maxInValues: 100,
  maxFilters: 20,
  maxSortKeys: 3,
  maxBuckets: 100,
  maxIdLength: 512,
  maxCursorLength: 2048,
  maxTextLength: 8192,
});

const LAYOUTS: readonly FilterLayout[] = ['per_field', 'grouped'];

/** Merges options over the defaults; every limit must be a positive integer. */
export function resolveOptions(options: SynthesisOptions = {}): ResolvedOptions {
  const resolved: ResolvedOptions = { ...DEFAULT_LIMITS, filterLayout: 'grouped' };
  for (const [key, value] of Object.entries(options)) {
    if (value === undefined) continue;
    if (key === 'filterLayout') {
      if (!LAYOUTS.includes(value as FilterLayout)) {
        throw new RangeError(
          `filterLayout must be one of ${LAYOUTS.join(', ')}; found ${String(value)}`,
        );
      }
      resolved.filterLayout = value as FilterLayout;
    } else if (Object.hasOwn(DEFAULT_LIMITS, key)) {
      if (typeof value !== 'number' || !Number.isSafeInteger(value) || value < 1) {
        throw new RangeError(
          `synthesis option ${key} must be a positive integer; found ${String(value)}`,
        );
      }
      resolved[key as keyof SynthesisLimits] = value;
    } else {
      throw new RangeError(`unknown synthesis option "${key}"`);
    }
  }
  return resolved;
}
