#!/bin/sh
# start-server: the server container's command when external providers are installed and preflight is
# enabled: the providers are checked, then the server starts.
#
# 1. Runs preflight.py (beside this script, in the scripts volume) with the Python interpreter
#    of the server's console script itself (`ogx` or `llama`), so the check imports exactly what the
#    server will import; a failed check stops the container with the reason in its log
#    (terminationMessagePolicy FallbackToLogsOnError).
# 2. Replaces itself with launch-server.sh (beside it), which starts the server as the image's entrypoint
#    would (OpenTelemetry, workers); the server is PID 1's successor and receives the pod's signals
#    directly. Its arguments (the container's args) are passed on.
#
# Values come from the environment, never from this text: OGX_CONFIG or LLAMA_STACK_CONFIG (the merged
# config, in the variable of the release), EXTERNAL_PROVIDERS_DIR (the shared volume), PYTHONPATH
# (provider packages first), SERVER_COMMAND and SERVER_PACKAGE (the release's command and package).
set -eu

if [ -z "${OGX_CONFIG:-${LLAMA_STACK_CONFIG:-}}" ]; then
  echo "ERROR: neither OGX_CONFIG nor LLAMA_STACK_CONFIG is set; start-server.sh needs the path of the config the server runs with." >&2
  exit 1
fi

# In a subshell: find-server-python.sh (which sets server_python, the interpreter of the server's
# console script, or exits with the reason) sets the positional parameters, and "$@" (the container's
# args) must reach the server.
(
  . "$(dirname "$0")/find-server-python.sh"
  "$server_python" "$(dirname "$0")/preflight.py"
)

exec /bin/sh "$(dirname "$0")/launch-server.sh" "$@"
