#!/bin/sh
# start-server: the server container's command when external providers are installed and preflight is
# enabled (seed 001 "Phase 4: Preflight Validation" then "Phase 5: Server Start").
#
# 1. Runs preflight.py (beside this script, from the init-scripts ConfigMap) with the Python interpreter
#    of the `llama` command itself, so the check imports exactly what the server will import; a failed
#    check stops the container with the reason in its log (terminationMessagePolicy FallbackToLogsOnError).
# 2. Replaces itself with `llama stack run "$LLAMA_STACK_CONFIG"`: the server is PID 1's successor and
#    receives the pod's signals directly.
#
# Values come from the environment, never from this text: LLAMA_STACK_CONFIG (the merged config),
# EXTERNAL_PROVIDERS_DIR (the shared volume), PYTHONPATH (provider packages first).
set -eu

if [ -z "${LLAMA_STACK_CONFIG:-}" ]; then
  echo "ERROR: LLAMA_STACK_CONFIG is not set; start-server.sh needs the path of the config the server runs with." >&2
  exit 1
fi

# shellcheck source=find-server-python.sh
. "$(dirname "$0")/find-server-python.sh"
if [ -z "$llama" ]; then
  printf 'ERROR: No `llama` command in the distribution image (PATH=%s).\n\nResolution: Use a Llama Stack distribution image (it installs the `llama` CLI), or set the PATH of the server container.\n' "$PATH" >&2
  exit 1
fi
if [ -z "$python" ]; then
  echo "ERROR: No Python interpreter found for preflight (neither the #! line of $llama nor python3 on PATH)." >&2
  exit 1
fi

"$python" "$(dirname "$0")/preflight.py"

exec llama stack run "$LLAMA_STACK_CONFIG"
