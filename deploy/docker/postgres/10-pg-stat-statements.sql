-- Run once by the postgres image on an empty volume (docker-entrypoint-initdb.d), as in
-- deploy/local: pg_stat_statements in the tollgate database and in template1, so every
-- database created later has it too.
CREATE EXTENSION IF NOT EXISTS pg_stat_statements;
\connect template1
CREATE EXTENSION IF NOT EXISTS pg_stat_statements;
