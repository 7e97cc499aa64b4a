# shellcheck shell=bash
# Elasticsearch 8: the official distribution zip that Elastic publishes to Maven Central
# (org.elasticsearch.distribution.integ-test-zip), plus deploy/local/es-plugin, our small
# plugin adding the scaled_float type and GET / that this zip lacks. Sourced by lib.sh.

ES_VERSION="${TOLLGATE_ES_VERSION:-8.19.21}"
ES_PORT="$(check_port TOLLGATE_ES_PORT 9200)"
ES_TRANSPORT_PORT="${TOLLGATE_ES_TRANSPORT_PORT:-9300-9399}"
ES_JAVA_OPTS_DEFAULT="${TOLLGATE_ES_JAVA_OPTS:--Xms512m -Xmx1g}"
ES_USER="${TOLLGATE_ES_USER:-tollgate-es}" # used only when running as root: ES refuses root
ES_ARTIFACT="org.elasticsearch.distribution.integ-test-zip:elasticsearch:$ES_VERSION:zip"
# As root, ES runs as $ES_USER, which must be able to enter its state folder: if the repo lives
# under a private folder such as /root, keep the ES state in /var/tmp instead.
if [ "$(id -u)" -eq 0 ] && ! world_searchable "$STATE_ROOT/elasticsearch"; then
  # shellcheck disable=SC2034 # read by state_dir() through indirection
  STATE_DIR_elasticsearch="/var/tmp/tollgate-$(printf '%s' "$STATE_ROOT" | sha256sum | cut -c1-8)/elasticsearch"
fi

elasticsearch_match() { printf 'elasticsearch'; }
elasticsearch_timeout() { printf '180'; }
elasticsearch_stop_timeout() { printf '30'; }
elasticsearch_ports() { printf 'TOLLGATE_ES_PORT=%s' "$ES_PORT"; }
elasticsearch_addr() { printf 'http://127.0.0.1:%s' "$ES_PORT"; }
elasticsearch_health_desc() { printf 'GET http://127.0.0.1:%s/_cluster/health?wait_for_status=yellow' "$ES_PORT"; }
elasticsearch_healthy() { http_ok "http://127.0.0.1:$ES_PORT/_cluster/health?wait_for_status=yellow&timeout=1s" 5; }

es_cache() { printf '%s/elasticsearch/%s' "$CACHE_ROOT" "$ES_VERSION"; }
es_plugin_hash() { find "$LOCAL_DIR/es-plugin/src" -name '*.java' | LC_ALL=C sort | xargs cat | sha256sum | cut -c1-12; }

es_java_home() {
  local jh="${TOLLGATE_ES_JAVA_HOME:-${ES_JAVA_HOME:-${JAVA_HOME:-}}}" java
  if [ -z "$jh" ]; then
    java="$(command -v java)" || return 1
    jh="$(dirname "$(dirname "$(readlink -f "$java")")")"
  fi
  [ -x "$jh/bin/java" ] && [ -x "$jh/bin/javac" ] || return 1
  printf '%s' "$jh"
}

es_check_java() {
  local jh major
  jh="$(es_java_home)" || die "elasticsearch: no JDK found (need java and javac 17+): install one (Debian: apt-get install openjdk-17-jdk-headless) or set TOLLGATE_ES_JAVA_HOME"
  major="$("$jh/bin/java" -XshowSettings:properties -version 2>&1 | sed -n 's/^ *java.specification.version = //p')"
  [ "${major:-0}" -ge 17 ] 2>/dev/null || die "elasticsearch: $jh is Java ${major:-?}; Elasticsearch 8 needs 17+ (set TOLLGATE_ES_JAVA_HOME)"
}

# Cache: <cache>/elasticsearch/<version>/{dist,plugin-<source hash>}; Maven's repo is <cache>/m2.
elasticsearch_provision() {
  local cache zip tmp jh hash started
  es_check_java
  jh="$(es_java_home)"
  cache="$(es_cache)"
  if [ ! -f "$cache/dist/.complete" ]; then
    started="$(date +%s)"
    require_cmd elasticsearch mvn "install Maven 3 (apt-get install maven) to download Elasticsearch from Maven Central"
    info "elasticsearch: downloading $ES_ARTIFACT via Maven (log: $(provision_log elasticsearch))"
    run_logged elasticsearch "mvn dependency:get" mvn -B -ntp -Dmaven.repo.local="$CACHE_ROOT/m2" \
      dependency:get -Dtransitive=false -Dartifact="$ES_ARTIFACT" || exit 1
    zip="$CACHE_ROOT/m2/org/elasticsearch/distribution/integ-test-zip/elasticsearch/$ES_VERSION/elasticsearch-$ES_VERSION.zip"
    tmp="$cache/unpack.$$"
    rm -rf "$tmp" "$cache/dist" && mkdir -p "$tmp"
    (cd "$tmp" && "$jh/bin/jar" xf "$zip") || die "elasticsearch: could not unpack $zip"
    mv "$tmp/elasticsearch-$ES_VERSION" "$cache/dist" && rm -rf "$tmp"
    chmod +x "$cache/dist/bin/"*
    touch "$cache/dist/.complete"
    info "elasticsearch: downloaded and unpacked to $cache/dist in $(($(date +%s) - started))s"
  fi
  hash="$(es_plugin_hash)"
  if [ ! -f "$cache/plugin-$hash/tollgate-extras.jar" ]; then
    info "elasticsearch: compiling deploy/local/es-plugin (scaled_float, GET /) against $ES_VERSION"
    started="$(date +%s)"
    tmp="$cache/plugin-$hash.tmp"
    rm -rf "$tmp" && mkdir -p "$tmp/classes"
    # shellcheck disable=SC2046 # one argument per source file
    run_logged elasticsearch "javac es-plugin" "$jh/bin/javac" --release 17 -nowarn -cp "$cache/dist/lib/*" \
      -d "$tmp/classes" $(find "$LOCAL_DIR/es-plugin/src" -name '*.java') || exit 1
    "$jh/bin/jar" cf "$tmp/tollgate-extras.jar" -C "$tmp/classes" .
    rm -rf "$tmp/classes" "$cache/plugin-$hash" && mv "$tmp" "$cache/plugin-$hash"
    info "elasticsearch: plugin built in $(($(date +%s) - started))s"
  fi
}

# The node runs from <state>/elasticsearch/home: hard links to the cached distribution plus our
# plugin, so it also works as root, whose ~/.cache the unprivileged ES user cannot read.
es_prepare_home() {
  local dir="$1" cache hash stamp
  cache="$(es_cache)"
  hash="$(es_plugin_hash)"
  stamp="$ES_VERSION $hash"
  [ "$(cat "$dir/home/.tollgate-stamp" 2>/dev/null)" = "$stamp" ] && return 0
  rm -rf "${dir:?}/home"
  cp -al "$cache/dist" "$dir/home" 2>/dev/null || cp -a "$cache/dist" "$dir/home"
  mkdir -p "$dir/home/plugins/tollgate-extras"
  cp "$cache/plugin-$hash/tollgate-extras.jar" "$dir/home/plugins/tollgate-extras/"
  cat >"$dir/home/plugins/tollgate-extras/plugin-descriptor.properties" <<EOF
description=Tollgate local dev extras: scaled_float field type and GET /
version=$ES_VERSION
name=tollgate-extras
classname=tollgate.es.TollgateExtrasPlugin
java.version=17
elasticsearch.version=$ES_VERSION
EOF
  printf '%s\n' "$stamp" >"$dir/home/.tollgate-stamp"
}

es_write_config() {
  local dir="$1"
  mkdir -p "$dir/config/jvm.options.d" "$dir/data" "$dir/logs" "$dir/tmp"
  cp "$dir/home/config/log4j2.properties" "$dir/config/"
  sed -e "s|file=gc.log|file=$dir/logs/gc.log|" -e "s|ErrorFile=hs_err|ErrorFile=$dir/logs/hs_err|" \
    "$dir/home/config/jvm.options" >"$dir/config/jvm.options"
  cat >"$dir/config/elasticsearch.yml" <<EOF
# generated by deploy/local/elasticsearch.sh on every start
cluster.name: tollgate-local
node.name: tollgate-local
path.data: $dir/data
path.logs: $dir/logs
network.host: 127.0.0.1
http.port: $ES_PORT
transport.port: $ES_TRANSPORT_PORT
discovery.type: single-node
xpack.security.enabled: false
cluster.routing.allocation.disk.threshold_enabled: false
action.destructive_requires_name: false
EOF
}

elasticsearch_start() {
  local dir jh run_as=()
  dir="$(state_dir elasticsearch)"
  jh="$(es_java_home)"
  mkdir -p "$dir" && chmod 755 "$dir" "$(dirname "$dir")"
  es_prepare_home "$dir"
  es_write_config "$dir"
  if [ "$(id -u)" -eq 0 ]; then
    if ! id "$ES_USER" >/dev/null 2>&1; then
      useradd --system --no-create-home --home-dir /nonexistent --shell /usr/sbin/nologin "$ES_USER" \
        || die "elasticsearch: could not create system user $ES_USER (Elasticsearch refuses to run as root)"
      info "elasticsearch: created system user $ES_USER (Elasticsearch refuses to run as root)"
    fi
    chown -R "$ES_USER:" "$dir/config" "$dir/data" "$dir/logs" "$dir/tmp"
    run_as=(setpriv --reuid="$ES_USER" --regid="$(id -g "$ES_USER")" --init-groups)
    "${run_as[@]}" test -r "$dir/home/lib/elasticsearch-$ES_VERSION.jar" -a -w "$dir/data" ||
      die "elasticsearch: user $ES_USER cannot reach $dir (a parent folder is not world-searchable); set TOLLGATE_STATE_DIR to another folder, e.g. /var/tmp/tollgate"
  fi
  start_background elasticsearch env ES_PATH_CONF="$dir/config" ES_TMPDIR="$dir/tmp" ES_JAVA_HOME="$jh" \
    ES_JAVA_OPTS="$ES_JAVA_OPTS_DEFAULT" "${run_as[@]}" "$dir/home/bin/elasticsearch"
}
