/**
 * The catalog reads discovery runs, each with the database and table name as bind parameters:
 * information_schema, which MySQL and MariaDB both have. Columns are aliased so both servers
 * answer with the same names.
 */

export const TABLE_QUERY = `
SELECT TABLE_TYPE AS table_type, TABLE_COMMENT AS description
FROM information_schema.TABLES WHERE TABLE_SCHEMA = ? AND TABLE_NAME = ?`;

export const COLUMNS_QUERY = `
SELECT COLUMN_NAME AS name, DATA_TYPE AS data_type, COLUMN_TYPE AS column_type,
       IS_NULLABLE AS is_nullable, COLUMN_DEFAULT AS column_default, EXTRA AS extra,
       COLUMN_COMMENT AS description, CHARACTER_MAXIMUM_LENGTH AS max_length,
       NUMERIC_PRECISION AS num_precision, NUMERIC_SCALE AS num_scale,
       COLLATION_NAME AS collation_name
FROM information_schema.COLUMNS WHERE TABLE_SCHEMA = ? AND TABLE_NAME = ?
ORDER BY ORDINAL_POSITION`;

export const INDEXES_QUERY = `
SELECT INDEX_NAME AS name, NON_UNIQUE AS non_unique, COLUMN_NAME AS column_name
FROM information_schema.STATISTICS WHERE TABLE_SCHEMA = ? AND TABLE_NAME = ?
ORDER BY INDEX_NAME, SEQ_IN_INDEX`;

/**
 * MariaDB's JSON is LONGTEXT with a `json_valid(col)` check; MySQL has a JSON type (and no
 * TABLE_NAME here, so the query fails there and finds nothing, which is right).
 */
export const JSON_CHECKS_QUERY = `
SELECT CHECK_CLAUSE AS clause
FROM information_schema.CHECK_CONSTRAINTS WHERE CONSTRAINT_SCHEMA = ? AND TABLE_NAME = ?`;
