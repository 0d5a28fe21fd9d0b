#!/bin/sh
# launch-server: starts the Llama Stack server with the config the construct prepared, as the
# distribution image's own entrypoint would have started it.
#
# - The config is LLAMA_STACK_CONFIG; without it (the image's own config), the image's RUN_CONFIG_PATH
#   or DISTRO_NAME, as upstream's entrypoint reads them (llama-stack containers/Containerfile).
# - With LLS_WORKERS set (the llama-stack operator's `workers`): uvicorn with that many worker
#   processes, started as the operator's startup script starts them (llama-stack-k8s-operator
#   controllers/resource_helper.go); llama-stack's create_app reads the config from LLAMA_STACK_CONFIG.
#   Otherwise `llama stack run`, which also applies the config's server.workers and TLS settings.
# - Through `opentelemetry-instrument` when any OTEL_* variable is set, as upstream's entrypoint does,
#   leaving out the database driver instrumentations that duplicate SQLAlchemy's spans. An image
#   without it starts plainly, with a warning.
# - Extra arguments (the container's args) go to the server command.
#
# Values come from the environment and the arguments, never from this text.
set -eu

if [ -z "${LLAMA_STACK_CONFIG:-}" ]; then
  if [ -n "${RUN_CONFIG_PATH:-}" ] && [ -f "$RUN_CONFIG_PATH" ]; then
    LLAMA_STACK_CONFIG="$RUN_CONFIG_PATH"
  elif [ -n "${DISTRO_NAME:-}" ]; then
    LLAMA_STACK_CONFIG="$DISTRO_NAME"
  else
    echo "ERROR: no config to start the server with: LLAMA_STACK_CONFIG is not set, and the image sets neither RUN_CONFIG_PATH (an existing file) nor DISTRO_NAME." >&2
    exit 1
  fi
  export LLAMA_STACK_CONFIG
fi

if [ -n "${LLS_WORKERS:-}" ]; then
  set -- uvicorn llama_stack.core.server.server:create_app --factory --host 0.0.0.0 \
    --port "${LLAMA_STACK_PORT:-8321}" --workers "$LLS_WORKERS" "$@"
else
  set -- llama stack run "$LLAMA_STACK_CONFIG" "$@"
fi

if env | grep -q '^OTEL_'; then
  if command -v opentelemetry-instrument >/dev/null 2>&1; then
    export OTEL_PYTHON_DISABLED_INSTRUMENTATIONS="${OTEL_PYTHON_DISABLED_INSTRUMENTATIONS:+$OTEL_PYTHON_DISABLED_INSTRUMENTATIONS,}asyncpg,sqlite3"
    set -- opentelemetry-instrument "$@"
  else
    echo "warning: OTEL_* variables are set, but this image has no opentelemetry-instrument: the server starts without OpenTelemetry auto-instrumentation." >&2
  fi
fi

exec "$@"
