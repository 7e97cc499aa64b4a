import Ajv2020Module from 'ajv/dist/2020.js';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { compileRequest } from '../../src/compile/compile.js';
import { compileToolValidator, validateToolArguments } from '@tollgate/core';
import { permissionsFromAccess, synthesizeTools } from './bound.js';
import type {
  FieldSpec,
  FilterOp,
  JsonObject,
  JsonValue,
  PermissionSet,
  ToolDefinition,
} from '@tollgate/core';
import { createStrictAjv } from '@tollgate/core';
import { repaired, valid } from './synthesis-arbitrary.js';
import { writableOrders } from '../../../../core/test/synthesis-fixtures.js';

const resource = writableOrders();
const declared = resource.spec.schema.fields;
const principal = { roles: ['support'], agent: 'support_bot' };
const permissions = permissionsFromAccess(resource, principal) as PermissionSet;
const tools = synthesizeTools(resource, permissions);
const RUNS = { numRuns: Number(process.env.PROPERTY_RUNS ?? 300) };

/** The operators the issue grants each field, written independently of the synthesizer. */
function allowedOps(spec: FieldSpec): FilterOp[] {
  const numeric = [
    'long',
    'integer',
    'short',
    'byte',
    'double',
    'float',
    'half_float',
    'scaled_float',
    'unsigned_long',
  ];
  if (spec.type === 'keyword' || spec.type === 'ip')
    return spec.filterable ? ['eq', 'in', 'exists'] : [];
  if (numeric.includes(spec.type) || spec.type === 'date') {
    return [
      ...(spec.filterable ? (['eq'] as const) : []),
      ...(spec.range ? (['gt', 'gte', 'lt', 'lte', 'between'] as const) : []),
    ];
  }
  if (spec.type === 'text') return spec.searchable ? ['match'] : [];
  if (spec.type === 'boolean') return spec.filterable ? ['eq'] : [];
  return [];
}

/** Every field, operator and key the arguments touch, checked against the permission set. */
function assertWithinPermissions(tool: ToolDefinition, args: JsonObject): void {
  const keys = Object.keys(tool.inputSchema.properties as JsonObject);
  for (const key of Object.keys(args)) expect(keys).toContain(key);
  for (const filter of (args.filters ?? []) as JsonObject[]) {
    const field = filter.field as string;
    expect(permissions.filterableFields).toContain(field);
    expect(allowedOps(declared[field] as FieldSpec)).toContain(filter.op);
    for (const key of Object.keys(filter)) expect(['field', 'op', 'value']).toContain(key);
  }
  for (const field of (args.fields ?? []) as string[])
    expect(permissions.visibleFields).toContain(field);
  for (const key of (args.sort ?? []) as JsonObject[]) {
    expect(permissions.visibleFields).toContain(key.field);
    expect(declared[key.field as string]?.sortable).toBe(true);
  }
  if (args.limit !== undefined)
    expect(args.limit as number).toBeLessThanOrEqual(permissions.limitCap);
  const aggregation = args.aggregation as JsonObject | undefined;
  if (aggregation !== undefined) {
    expect(permissions.visibleFields).toContain(aggregation.field);
    expect(declared[aggregation.field as string]?.aggregatable).toBe(true);
  }
  for (const field of Object.keys((args.document ?? {}) as JsonObject))
    expect(permissions.visibleFields).toContain(field);
}

const validArgs = (tool: ToolDefinition): fc.Arbitrary<JsonObject> =>
  valid(tool.inputSchema).map(repaired);
const filtering = tools.filter((tool) => 'filters' in (tool.inputSchema.properties as JsonObject));
const forbiddenFields = fc.oneof(
  fc.constantFrom(
    ...Object.keys(declared).filter((f) => !permissions.filterableFields.includes(f)),
  ),
  fc
    .string({ minLength: 1, maxLength: 12 })
    .filter((f) => !permissions.filterableFields.includes(f)),
);

describe('synthesis properties', { timeout: 120_000 }, () => {
  it('synthesis properties - arguments valid under a tool touch only what the permission set allows', () => {
    for (const tool of tools) {
      fc.assert(
        fc.property(validArgs(tool), (args) => {
          const result = validateToolArguments(tool, args);
          expect(result, JSON.stringify(args)).toMatchObject({ ok: true });
          if (result.ok) assertWithinPermissions(tool, result.args as JsonObject);
        }),
        RUNS,
      );
    }
  });

  it('synthesis properties - any argument object the schema accepts stays within the permissions', () => {
    const search = tools[0] as ToolDefinition;
    const fieldNames = [...Object.keys(declared), 'secret', '__proto__'];
    const hostileFilter = fc.record(
      {
        field: fc.constantFrom(...fieldNames),
        op: fc.constantFrom(
          'eq',
          'in',
          'exists',
          'gt',
          'gte',
          'lt',
          'lte',
          'between',
          'match',
          'script',
        ),
        value: fc.oneof(
          fc.string(),
          fc.integer(),
          fc.boolean(),
          fc.array(fc.integer(), { maxLength: 3 }),
          fc.constant(null),
        ),
      },
      { requiredKeys: ['field', 'op'] },
    );
    const hostile = fc.record(
      {
        filters: fc.array(hostileFilter, { maxLength: 3 }),
        fields: fc.array(fc.constantFrom(...fieldNames), { maxLength: 3 }),
        limit: fc.integer({ min: -5, max: 500 }),
        query: fc.anything(),
      },
      { requiredKeys: [] },
    );
    let accepted = 0;
    fc.assert(
      fc.property(hostile, (args) => {
        const result = validateToolArguments(search, args);
        if (!result.ok) return;
        accepted++;
        assertWithinPermissions(search, result.args as JsonObject);
      }),
      { numRuns: 2000 },
    );
    expect(accepted).toBeGreaterThan(0);
  });

  it('synthesis properties - naming another field, operator or key is always rejected', () => {
    for (const tool of filtering) {
      const withFilter = validArgs(tool).filter(
        (args) => Array.isArray(args.filters) && args.filters.length > 0,
      );
      fc.assert(
        fc.property(withFilter, forbiddenFields, fc.nat(), (args, field, pick) => {
          const filters = args.filters as JsonObject[];
          (filters[pick % filters.length] as JsonObject).field = field;
          expect(validateToolArguments(tool, args).ok).toBe(false);
        }),
        RUNS,
      );
      fc.assert(
        fc.property(
          withFilter,
          fc.constantFrom<FilterOp>(
            'eq',
            'in',
            'exists',
            'gt',
            'gte',
            'lt',
            'lte',
            'between',
            'match',
          ),
          fc.nat(),
          (args, op, pick) => {
            const filter = (args.filters as JsonObject[])[
              pick % (args.filters as JsonObject[]).length
            ] as JsonObject;
            fc.pre(!allowedOps(declared[filter.field as string] as FieldSpec).includes(op));
            filter.op = op;
            expect(validateToolArguments(tool, args).ok).toBe(false);
          },
        ),
        RUNS,
      );
      fc.assert(
        fc.property(
          validArgs(tool),
          fc.string({ minLength: 1, maxLength: 10 }),
          fc.boolean(),
          (args, key, nested) => {
            const target =
              nested && Array.isArray(args.filters) && args.filters.length > 0
                ? (args.filters[0] as JsonObject)
                : args;
            fc.pre(
              !Object.hasOwn(target, key) &&
                ![
                  'field',
                  'op',
                  'value',
                  ...Object.keys(tool.inputSchema.properties as JsonObject),
                ].includes(key),
            );
            // An own property even for `__proto__`, as JSON.parse makes it.
            Object.defineProperty(target, key, {
              value: 1,
              enumerable: true,
              configurable: true,
              writable: true,
            });
            expect(validateToolArguments(tool, args).ok).toBe(false);
          },
        ),
        RUNS,
      );
    }
    const search = tools[0] as ToolDefinition;
    const hidden = Object.keys(declared).filter((f) => !permissions.visibleFields.includes(f));
    fc.assert(
      fc.property(validArgs(search), fc.constantFrom(...hidden), (args, field) => {
        args.fields = [...((args.fields ?? []) as string[]), field];
        expect(validateToolArguments(search, args).ok).toBe(false);
      }),
      RUNS,
    );
  });

  it('synthesis properties - dispatched validation agrees with Ajv compiling the whole schema', () => {
    const ajv = createStrictAjv();
    for (const tool of tools) {
      const reference = ajv.compile(tool.inputSchema);
      const fast = compileToolValidator(tool);
      const mutated = validArgs(tool).chain((args) =>
        fc.oneof(
          fc.constant(args as JsonValue),
          fc.anything().map((junk) => ({ ...args, filters: [junk] }) as JsonValue),
          fc.anything().map((junk) => ({ ...args, aggregation: junk }) as JsonValue),
          fc.tuple(fc.string({ maxLength: 8 }), fc.anything()).map(([k, v]) => {
            const filters = ((args.filters ?? []) as JsonObject[]).map((f, i) =>
              i === 0 ? { ...f, [k]: v } : f,
            );
            return { ...args, filters } as JsonValue;
          }),
        ),
      );
      fc.assert(
        fc.property(mutated, (args) => {
          expect(fast.matches(args), JSON.stringify(args)).toBe(reference(args));
        }),
        RUNS,
      );
    }
    expect(Ajv2020Module.default).toBeTypeOf('function');
  });

  it('synthesis properties - valid arguments are accepted by the Elasticsearch compiler', () => {
    const ctx = {
      descriptor: resource,
      permissions,
      principal: { tenant: 'team-a', agent: 'support_bot' },
    };
    for (const tool of tools) {
      fc.assert(
        // Cursors are sealed by the query that issued them; a made-up one is rightly refused.
        fc.property(validArgs(tool), (args) => {
          delete args.cursor;
          const result = validateToolArguments(tool, args);
          if (!result.ok) throw new Error(JSON.stringify(result.details));
          expect(() => compileRequest(tool.operation, result.args, ctx)).not.toThrow();
        }),
        RUNS,
      );
    }
  });
});
