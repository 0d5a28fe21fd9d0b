#!/bin/sh
# inspect-distribution: the first init container, run in the distribution image before any provider is
# installed. Records what the server's own Python environment contains (inspect-distribution.py), so
# that each provider's install step serves the provider from the server's copy of a package instead of
# shadowing it, and refuses a provider whose requirements the server's versions do not meet.
#
# Values come from the environment, never from this text: EXTERNAL_PROVIDERS_DIR (the shared volume),
# DISTRIBUTION_IMAGE (named in messages), PYTHONPATH (as the server container has it).
set -eu

# The interpreter of the server's console script, `ogx` or `llama` (sets server_python; exits with the reason when none).
. "$(dirname "$0")/find-server-python.sh"

exec "$server_python" "$(dirname "$0")/inspect-distribution.py"
