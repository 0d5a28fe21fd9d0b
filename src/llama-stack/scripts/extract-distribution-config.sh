#!/bin/sh
# extract-distribution-config: runs in the distribution image when no user config is given, and
# copies the distribution's own config file to the shared volume for the merge step. Upstream renamed
# run.yaml to config.yaml, so the candidates cover both names.
#
# Values come from the environment, never from this text:
#   CONFIG_SEARCH_PATHS (candidate files, colon-separated, in order), BASE_CONFIG_FILE (where to write),
#   DISTRIBUTION_IMAGE (for messages).
set -eu
set -f # the candidates are literal paths: no globbing

IFS=:
for candidate in $CONFIG_SEARCH_PATHS; do
  if [ -f "$candidate" ]; then
    printf 'Found distribution config at %s\n' "$candidate"
    # Copy then rename, so the merge step never reads a half-written file.
    cp "$candidate" "$BASE_CONFIG_FILE.tmp"
    mv "$BASE_CONFIG_FILE.tmp" "$BASE_CONFIG_FILE"
    printf 'Copied to %s\n' "$BASE_CONFIG_FILE"
    exit 0
  fi
done

{
  printf 'ERROR: No config.yaml or run.yaml found in distribution image %s\n' "$DISTRIBUTION_IMAGE"
  printf 'Checked paths:\n'
  for candidate in $CONFIG_SEARCH_PATHS; do
    printf '  - %s (not found)\n' "$candidate"
  done
  printf '\nResolution: Either provide a user config (userConfig: a ConfigMap or an inline config) or use a distribution image that includes config.yaml or run.yaml at one of the paths above (set distributionConfigPaths to search elsewhere).\n'
} >&2
exit 1
