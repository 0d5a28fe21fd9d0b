#!/usr/bin/env bash
# Builds the merge image from this repository with buildah (chroot isolation: no daemon, no
# privileged runtime, works where `podman run` does not).
#
# Usage: scripts/merge-image/build.sh [--base IMAGE] [--tag TAG]
#   --base IMAGE  Node base image (default: one assembled locally by local-base.sh, since no image
#                 registry is reachable here; the release workflow uses the Containerfile's default,
#                 the official node image)
#   --tag TAG     default: localhost/kube-inference/merge:<package version>
# Prints the tag of the built image.
set -euo pipefail
repo="$(cd "$(dirname "$0")/../.." && pwd)"
version="$(node -p "require('$repo/package.json').version")"
base=""
tag="localhost/kube-inference/merge:${version}"
while [ $# -gt 0 ]; do
  case "$1" in
    --base) base="$2"; shift 2 ;;
    --tag) tag="$2"; shift 2 ;;
    *) echo "unknown option: $1" >&2; exit 2 ;;
  esac
done
if [ -z "$base" ]; then
  base="$("$repo/scripts/merge-image/local-base.sh")"
fi

context="$(mktemp -d)"
trap 'rm -rf "$context"' EXIT
"$repo/scripts/merge-image/bundle.sh" "$context"
buildah build --quiet --isolation chroot --no-hosts --dns=none \
  --build-arg BASE="$base" --build-arg VERSION="$version" \
  --file "$repo/containers/merge/Containerfile" --tag "$tag" "$context" >/dev/null
echo "$tag"
