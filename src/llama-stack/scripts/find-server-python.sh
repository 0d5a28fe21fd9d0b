# find-server-python: sourced by the scripts that run in the distribution image. Sets `python` to the
# interpreter of the image's `llama` command (its #! line, `#!/usr/bin/env python3` included), so they
# see exactly the packages the server sees; falls back to python3/python on PATH. Sets `llama` to the
# command's path (empty when the image has none). Values come from the environment (PATH) only.
llama=$(command -v llama || true)
python=
if [ -n "$llama" ] && [ -r "$llama" ]; then
  IFS= read -r first < "$llama" || true
  case "$first" in
    '#!'*python*)
      set -f
      # shellcheck disable=SC2086 # split the #! line into words on purpose
      set -- ${first#??}
      set +f
      case "$1" in
        */env) [ "$#" -ge 2 ] && python=$(command -v "$2" || true) ;;
        *) [ -x "$1" ] && python=$1 ;;
      esac
      ;;
  esac
fi
if [ -z "$python" ]; then
  python=$(command -v python3 || command -v python || true)
fi
