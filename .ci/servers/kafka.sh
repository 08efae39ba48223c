#!/usr/bin/env bash
# Apache Kafka as a single KRaft node on 127.0.0.1, from Maven Central jars (no Docker here).
#   kafka.sh start | stop | resume | fetch
# start formats a new single-node cluster under $GOV_CI_STATE/kafka; resume restarts a stopped one on
# its data; jars are cached under $GOV_CI_CACHE. Ports: GOV_KAFKA_PORT, GOV_KAFKA_CONTROLLER_PORT.
set -euo pipefail
# shellcheck source=lib.sh
source "$(dirname "$0")/lib.sh"
here="$(cd "$(dirname "$0")" && pwd)"
cache="${GOV_CI_CACHE:-$HOME/.cache/gov-ci}"
state="${GOV_CI_STATE:-/tmp/gov-ci-servers}/kafka"
port="${GOV_KAFKA_PORT:-9092}"
controller_port="${GOV_KAFKA_CONTROLLER_PORT:-9093}"
version="$(sed -n 's:.*<kafka.version>\(.*\)</kafka.version>.*:\1:p' "$here/kafka-pom.xml")"
libs="$cache/kafka-$version/libs"

fetch() {
  [ -f "$libs/.complete" ] && return
  echo "kafka: resolving kafka_2.13 $version and its runtime dependencies from Maven Central" >&2
  rm -rf "$libs"
  mvn -q -B -f "$here/kafka-pom.xml" dependency:copy-dependencies \
    -DoutputDirectory="$libs" -DincludeScope=runtime >&2
  touch "$libs/.complete"
}

start() {
  fetch
  rm -rf "$state" && mkdir -p "$state/data"
  configure
  local cluster
  cluster="$("${java[@]}" kafka.tools.StorageTool random-uuid)"
  "${java[@]}" kafka.tools.StorageTool format -t "$cluster" -c "$state/server.properties" >/dev/null
  launch
}

# A stopped broker started again on the data it had (a broker restart, not a new cluster).
resume() {
  [ -f "$state/server.properties" ] || { echo "kafka: nothing to resume under $state" >&2; exit 1; }
  java=(java -Xms256m -Xmx768m -Dlog4j.configuration="file:$state/log4j.properties" -cp "$libs/*")
  launch
}

configure() {
  cat >"$state/server.properties" <<PROPS
process.roles=broker,controller
node.id=1
controller.quorum.voters=1@127.0.0.1:$controller_port
listeners=PLAINTEXT://127.0.0.1:$port,CONTROLLER://127.0.0.1:$controller_port
advertised.listeners=PLAINTEXT://127.0.0.1:$port
controller.listener.names=CONTROLLER
listener.security.protocol.map=PLAINTEXT:PLAINTEXT,CONTROLLER:PLAINTEXT
inter.broker.listener.name=PLAINTEXT
log.dirs=$state/data
num.partitions=1
offsets.topic.replication.factor=1
offsets.topic.num.partitions=4
transaction.state.log.replication.factor=1
transaction.state.log.min.isr=1
group.initial.rebalance.delay.ms=0
# Topics are created by the service with their partitions and retention, never on first use.
auto.create.topics.enable=false
PROPS
  cat >"$state/log4j.properties" <<PROPS
log4j.rootLogger=WARN, file
log4j.appender.file=org.apache.log4j.FileAppender
log4j.appender.file.File=$state/server.log
log4j.appender.file.layout=org.apache.log4j.PatternLayout
log4j.appender.file.layout.ConversionPattern=[%d] %p %m (%c)%n
PROPS
  java=(java -Xms256m -Xmx768m -Dlog4j.configuration="file:$state/log4j.properties" -cp "$libs/*")
}

launch() {
  nohup "${java[@]}" kafka.Kafka "$state/server.properties" >"$state/stdout.log" 2>&1 &
  echo $! >"$state/pid"
  wait_listening "kafka $version" "$port" "$state/pid" 60 "$state/stdout.log" "$state/server.log"
}

stop() {
  stop_pidfile "$state/pid"
}

case "${1:-}" in
  start) start ;;
  stop) stop ;;
  resume) resume ;;
  fetch) fetch ;;
  *) echo "usage: $0 start|stop|resume|fetch" >&2; exit 2 ;;
esac
