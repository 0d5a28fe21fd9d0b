#!/bin/sh
# The entrypoint of the upstream OGX distribution images (OGX: Llama Stack renamed, from 0.8), written
# here from the description of ogx-ai/ogx containers/Containerfile, which creates
# /usr/local/bin/ogx-entrypoint.sh in the image: run $RUN_CONFIG_PATH when the image has that file,
# else the distribution the image was built for ($DISTRO_NAME), else whatever the arguments say, each
# with `$CLI_NAME stack run` ($CLI_NAME: `ogx`, the image's ENV, also when unset); through
# opentelemetry-instrument when an OTEL_* variable is set, with the DB driver instrumentations
# (asyncpg, sqlite3) added to OTEL_PYTHON_DISABLED_INSTRUMENTATIONS, as upstream does, so their spans
# do not duplicate SQLAlchemy's. The test distribution image installs it so a pod whose server
# container keeps the image's entrypoint starts as it would upstream. (ogx >= 1.2 refuses to serve
# plain HTTP unless the config sets server.insecure or the arguments pass --insecure.)
set -e
CMD_PREFIX=""
if env | grep -q '^OTEL_'; then
  CMD_PREFIX="opentelemetry-instrument"
  export OTEL_PYTHON_DISABLED_INSTRUMENTATIONS="${OTEL_PYTHON_DISABLED_INSTRUMENTATIONS:+$OTEL_PYTHON_DISABLED_INSTRUMENTATIONS,}asyncpg,sqlite3"
fi
CLI_NAME="${CLI_NAME:-ogx}"
if [ -n "$RUN_CONFIG_PATH" ] && [ -f "$RUN_CONFIG_PATH" ]; then
  exec $CMD_PREFIX "$CLI_NAME" stack run "$RUN_CONFIG_PATH" "$@"
fi
if [ -n "$DISTRO_NAME" ]; then
  exec $CMD_PREFIX "$CLI_NAME" stack run "$DISTRO_NAME" "$@"
fi
exec $CMD_PREFIX "$CLI_NAME" stack run "$@"
