# shellcheck shell=bash
# Sourced once by the mariadb image on an empty volume (docker-entrypoint-initdb.d). The image
# grants MARIADB_USER its own database only; as in deploy/local, the admin gets all privileges
# with grant option, so tests can read performance_schema and switch the general log.
docker_process_sql --database=mysql <<<"GRANT ALL PRIVILEGES ON *.* TO '${MARIADB_USER}'@'%' WITH GRANT OPTION;"
