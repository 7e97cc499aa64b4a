/**
 * The one Ajv configuration tool schemas are compiled with: draft 2020-12, strict mode
 * (unknown keywords, ambiguous types and missing `type`s are errors), union types allowed for
 * nullable optionals (`type: ["integer", "null"]`), every error reported, and the formats
 * tools use checked: `ipv4`, `ipv6`, `uuid`, `date` and `date-time` (in the strict form of
 * `date-time.ts`, which every kind reads the same way).
 */
import Ajv2020Module from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import { isDateTime } from './date-time.js';

// Both packages are CommonJS; under NodeNext their classes sit on `.default`.
const Ajv2020 = Ajv2020Module.default;
const addFormats = addFormatsModule.default;

export type StrictAjv = InstanceType<typeof Ajv2020>;

/** A fresh Ajv instance configured for tool schemas. */
export function createStrictAjv(): StrictAjv {
  const ajv = new Ajv2020({ strict: true, allErrors: true, allowUnionTypes: true });
  addFormats(ajv, ['ipv4', 'ipv6', 'uuid', 'date']);
  ajv.addFormat('date-time', { type: 'string', validate: isDateTime });
  return ajv;
}
