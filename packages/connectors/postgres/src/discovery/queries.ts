/**
 * The catalog reads discovery runs, each with the schema and table name as bind parameters
 * ($1, $2): pg_catalog rather than information_schema, because only it has enum labels,
 * domain base types, array element types and comments in one place.
 */

export const TABLE_QUERY = `
SELECT c.relkind AS relkind, obj_description(c.oid, 'pg_class') AS description
FROM pg_catalog.pg_class c JOIN pg_catalog.pg_namespace n ON n.oid = c.relnamespace
WHERE n.nspname = $1 AND c.relname = $2 AND c.relkind IN ('r', 'p', 'v', 'm', 'f')`;

export const COLUMNS_QUERY = `
SELECT a.attname AS name,
       format_type(a.atttypid, a.atttypmod) AS formatted,
       bt.typname AS typname, bt.typtype AS typtype,
       et.typname AS elem_typname, et.typtype AS elem_typtype,
       CASE WHEN et.oid IS NOT NULL THEN format_type(et.oid, NULL) END AS elem_formatted,
       CASE WHEN bt.typtype = 'e' THEN ARRAY(SELECT e.enumlabel::text FROM pg_catalog.pg_enum e WHERE e.enumtypid = bt.oid ORDER BY e.enumsortorder) END AS enum_values,
       CASE WHEN et.typtype = 'e' THEN ARRAY(SELECT e.enumlabel::text FROM pg_catalog.pg_enum e WHERE e.enumtypid = et.oid ORDER BY e.enumsortorder) END AS elem_enum_values,
       NOT a.attnotnull AS nullable,
       (a.atthasdef OR a.attidentity <> '' OR a.attgenerated <> '') AS has_default,
       col_description(c.oid, a.attnum) AS description
FROM pg_catalog.pg_attribute a
JOIN pg_catalog.pg_class c ON c.oid = a.attrelid
JOIN pg_catalog.pg_namespace n ON n.oid = c.relnamespace
JOIN pg_catalog.pg_type t ON t.oid = a.atttypid
JOIN pg_catalog.pg_type bt ON bt.oid = CASE WHEN t.typtype = 'd' THEN t.typbasetype ELSE t.oid END
LEFT JOIN pg_catalog.pg_type et ON et.oid = bt.typelem AND bt.typcategory = 'A'
WHERE n.nspname = $1 AND c.relname = $2 AND a.attnum > 0 AND NOT a.attisdropped
ORDER BY a.attnum`;

export const INDEXES_QUERY = `
SELECT i.relname AS name, ix.indisunique AS is_unique, ix.indisprimary AS is_primary,
       ARRAY(SELECT a.attname::text FROM unnest(ix.indkey::int2[]) WITH ORDINALITY AS k(attnum, ord)
             JOIN pg_catalog.pg_attribute a ON a.attrelid = ix.indrelid AND a.attnum = k.attnum
             ORDER BY k.ord) AS columns
FROM pg_catalog.pg_index ix
JOIN pg_catalog.pg_class i ON i.oid = ix.indexrelid
JOIN pg_catalog.pg_class c ON c.oid = ix.indrelid
JOIN pg_catalog.pg_namespace n ON n.oid = c.relnamespace
WHERE n.nspname = $1 AND c.relname = $2 AND ix.indisvalid
ORDER BY i.relname`;
