# find-server-python: sourced (`. find-server-python.sh`) by the scripts that must run Python exactly as
# the Llama Stack server does. Sets `server_python` to the interpreter of the `llama` console script,
# found as the kernel finds it: the script's #! line (`#!/usr/bin/env python3` included), else python3
# (or python) on PATH. Exits with the reason when there is no `llama` command or no Python at all.

llama=$(command -v llama || true)
if [ -z "$llama" ]; then
  printf 'ERROR: No `llama` command in the distribution image (PATH=%s).\n\nResolution: Use a Llama Stack distribution image (it installs the `llama` CLI), or set the PATH of the server container.\n' "$PATH" >&2
  exit 1
fi

server_python=
if [ -r "$llama" ]; then
  IFS= read -r first < "$llama" || true
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
  echo "ERROR: No Python interpreter found for the server (neither the #! line of $llama nor python3 on PATH)." >&2
  exit 1
fi
