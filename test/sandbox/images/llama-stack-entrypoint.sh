#!/bin/sh
# The entrypoint of the upstream Llama Stack distribution images, as llama-stack's
# containers/Containerfile writes it (llama-stack 0.3 onward): run $RUN_CONFIG_PATH when the image
# has that file, else the distribution the image was built for ($DISTRO_NAME), through
# opentelemetry-instrument when an OTEL_* variable is set. The test distribution image installs it
# so a pod whose server container keeps the image's entrypoint starts as it would upstream.
set -e
CMD_PREFIX=""
if env | grep -q '^OTEL_'; then
  CMD_PREFIX="opentelemetry-instrument"
fi
if [ -n "$RUN_CONFIG_PATH" ] && [ -f "$RUN_CONFIG_PATH" ]; then
  exec $CMD_PREFIX llama stack run "$RUN_CONFIG_PATH" "$@"
fi
if [ -n "$DISTRO_NAME" ]; then
  exec $CMD_PREFIX llama stack run "$DISTRO_NAME" "$@"
fi
exec $CMD_PREFIX llama stack run "$@"
