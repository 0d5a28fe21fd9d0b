# find-server-python: sourced (`. find-server-python.sh`) by the scripts that must run Python exactly as
# the server does. Sets `server_python` to the interpreter of the server's console script (`ogx` from
# ogx 0.8, `llama` for llama-stack: the first word of SERVER_COMMAND, which the construct sets for the
# release it rendered), found as the kernel finds it: the script's #! line (`#!/usr/bin/env python3`
# included), else python3 (or python) on PATH. Exits with the reason when there is no such command or
# no Python at all.

if [ -z "${SERVER_COMMAND:-}" ]; then
  echo "ERROR: SERVER_COMMAND is not set: the construct sets it to the release's run command (ogx run, llama stack run)." >&2
  exit 1
fi
# The construct's own constant ("ogx run", "llama stack run"), split into words on purpose.
set -f
# shellcheck disable=SC2086
set -- $SERVER_COMMAND
set +f
server_cli=$1
cli=$(command -v "$server_cli" || true)
if [ -z "$cli" ]; then
  printf 'ERROR: No `%s` command in the distribution image (PATH=%s).\n\nResolution: The pod was rendered for a server release whose command is `%s` (serverVersion, or the tag of the distribution image). Use a distribution image of that release, set serverVersion to the release the image runs (`ogx` from ogx 0.8, `llama` for llama-stack 0.2 to 0.7), or set the PATH of the server container.\n' \
    "$server_cli" "$PATH" "$server_cli" >&2
  exit 1
fi

server_python=
if [ -r "$cli" ]; then
  IFS= read -r first < "$cli" || true
  case "$first" in
    '#!'*python*)
      set -f
      # shellcheck disable=SC2086 # split the #! line into words on purpose
      set -- ${first#??}
      set +f
      case "$1" in
        */env) [ "$#" -ge 2 ] && server_python=$(command -v "$2" || true) ;;
        *) [ -x "$1" ] && server_python=$1 ;;
      esac
      ;;
  esac
fi
if [ -z "$server_python" ]; then
  server_python=$(command -v python3 || command -v python || true)
fi
if [ -z "$server_python" ]; then
  echo "ERROR: No Python interpreter found for the server (neither the #! line of $cli nor python3 on PATH)." >&2
  exit 1
fi
