#!/bin/sh
# launch-server: starts the server (llama-stack, or OGX from 0.8) with the config the construct
# prepared, as the distribution image's own entrypoint would have started it.
#
# What differs between releases comes from the construct, as constants in the environment:
# SERVER_COMMAND (`ogx run`, `ogx stack run` in ogx 0.8, `llama stack run`), SERVER_APP_FACTORY (the
# uvicorn application factory, with LLS_WORKERS), SERVER_INSECURE (`true`: plain HTTP on a release that
# requires `--insecure` for it, ogx 1.2 on).
# - The config is OGX_CONFIG or LLAMA_STACK_CONFIG (whichever the release reads); without it (the
#   image's own config), the image's RUN_CONFIG_PATH or DISTRO_NAME, as upstream's entrypoint reads them
#   (ogx-ai/ogx and llama-stack containers/Containerfile).
# - With LLS_WORKERS set (the operators' `workers`, on releases without OGX_WORKERS): uvicorn with that
#   many worker processes, started as the llama-stack operator's startup script starts them
#   (llama-stack-k8s-operator controllers/resource_helper.go); the factory reads the config from the
#   release's config variable. Otherwise the release's run command, which also applies the config's
#   server.workers (or OGX_WORKERS, ogx 1.2 on) and TLS settings.
# - Through `opentelemetry-instrument` when any OTEL_* variable is set, as upstream's entrypoint does,
#   leaving out the database driver instrumentations that duplicate SQLAlchemy's spans. An image
#   without it starts plainly, with a warning.
# - Extra arguments (the container's args) go to the server command.
#
# Values come from the environment and the arguments, never from this text.
set -eu

config=${OGX_CONFIG:-${LLAMA_STACK_CONFIG:-}}
if [ -z "$config" ]; then
  if [ -n "${RUN_CONFIG_PATH:-}" ] && [ -f "$RUN_CONFIG_PATH" ]; then
    config=$RUN_CONFIG_PATH
  elif [ -n "${DISTRO_NAME:-}" ]; then
    config=$DISTRO_NAME
  else
    echo "ERROR: no config to start the server with: neither OGX_CONFIG nor LLAMA_STACK_CONFIG is set, and the image sets neither RUN_CONFIG_PATH (an existing file) nor DISTRO_NAME." >&2
    exit 1
  fi
fi

if [ -n "${LLS_WORKERS:-}" ]; then
  if [ -z "${SERVER_APP_FACTORY:-}" ]; then
    echo "ERROR: LLS_WORKERS is set, but SERVER_APP_FACTORY is not: the construct sets both, for workers on a release whose workers start through uvicorn (llama-stack 0.3 to ogx 1.1)." >&2
    exit 1
  fi
  # The factory reads the config from the environment, from the variable of its release.
  case "$SERVER_APP_FACTORY" in
    ogx.*) OGX_CONFIG=$config; export OGX_CONFIG ;;
    *) LLAMA_STACK_CONFIG=$config; export LLAMA_STACK_CONFIG ;;
  esac
  set -- uvicorn "$SERVER_APP_FACTORY" --factory --host 0.0.0.0 \
    --port "${OGX_PORT:-${LLAMA_STACK_PORT:-8321}}" --workers "$LLS_WORKERS" "$@"
else
  if [ "${SERVER_INSECURE:-}" = true ]; then
    set -- --insecure "$@"
  fi
  if [ -z "${SERVER_COMMAND:-}" ]; then
    echo "ERROR: SERVER_COMMAND is not set: the construct sets it to the release's run command (ogx run, llama stack run)." >&2
    exit 1
  fi
  run=$SERVER_COMMAND
  set -f
  # shellcheck disable=SC2086 # the construct's constant ("ogx run"), split into words on purpose
  set -- $run "$config" "$@"
  set +f
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
