#!/bin/sh
# extract-distribution-config: runs in the distribution image when no user config is given, and
# copies the distribution's own config file to the shared volume for the merge step. The search
# needs the image's Python (upstream images keep the config inside the installed llama_stack
# package), so this wrapper finds the interpreter of the server's command (`ogx` or `llama`) and hands over to
# extract-distribution-config.py beside it.
#
# Values come from the environment, never from this text: CONFIG_SEARCH_PATHS, BASE_CONFIG_FILE,
# DISTRIBUTION_IMAGE, DISTRIBUTION_NAME, SERVER_COMMAND, SERVER_PACKAGE, and the image's own DISTRO_NAME / RUN_CONFIG_PATH.
set -eu

# The interpreter of the server's console script, `ogx` or `llama` (sets server_python; exits with the reason when none).
. "$(dirname "$0")/find-server-python.sh"

exec "$server_python" "$(dirname "$0")/extract-distribution-config.py"
