#!/bin/sh
# install-provider: runs as the `install-provider-<providerKey>` init container, inside the provider's
# own image, after the inspect-distribution init container recorded the server's own packages.
#
# Every value that comes from the user (provider id, image, config) reaches this script through the
# environment, never through its text, so no input can change what it runs:
#   PROVIDER_ID, PROVIDER_KEY (the DNS-1123 label derived from the id that names its directories),
#   PROVIDER_IMAGE, PROVIDER_API, PROVIDER_CRD_SECTION, INIT_CONTAINER_NAME,
#   PROVIDER_CRD_CONFIG (the crd-config.yaml document, JSON), EXTERNAL_PROVIDERS_DIR (the shared volume).
# Messages go to stderr as well as the logs: with terminationMessagePolicy FallbackToLogsOnError the
# tail of the log becomes the reason shown in the pod status.
set -eu

spec=/lls-provider/lls-provider-spec.yaml
packages=/lls-provider/packages

context() {
  printf 'Provider: %s\nImage: %s\nInit Container: %s\n' "$PROVIDER_ID" "$PROVIDER_IMAGE" "$INIT_CONTAINER_NAME"
}

fail() {
  printf '%s\n' "$@" >&2
  exit 1
}

printf 'Installing external provider %s (api %s) from image %s\n' "$PROVIDER_ID" "$PROVIDER_API" "$PROVIDER_IMAGE"

if [ ! -f "$spec" ]; then
  fail "ERROR: Missing /lls-provider/lls-provider-spec.yaml in image $PROVIDER_IMAGE" "" "$(context)" "" \
    "Resolution: Provider images must contain their metadata file at /lls-provider/lls-provider-spec.yaml. Rebuild the image with it, or check that '$PROVIDER_IMAGE' is the provider image you meant."
fi

if [ ! -d "$packages" ]; then
  fail "ERROR: Missing /lls-provider/packages/ directory in image $PROVIDER_IMAGE" "" "$(context)" "" \
    "Resolution: Provider images must contain their wheels (the provider and all its dependencies) in /lls-provider/packages/. Rebuild the image with them."
fi

python=$(command -v python3 || command -v python || true)
if [ -z "$python" ]; then
  fail "ERROR: No python3 in provider image $PROVIDER_IMAGE" "" "$(context)" "" \
    "Resolution: Provider images install their wheels with the image's own Python and pip. Build the image on a Python base (for example python:3.12-slim)."
fi

# The rest needs real data structures (wheel metadata, version specifiers), so it is Python; it lives
# beside this script in the same ConfigMap.
exec "$python" "$(dirname "$0")/install-provider.py"
