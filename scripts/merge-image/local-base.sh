#!/usr/bin/env bash
# Assembles a Node base image without any registry, for building the merge image offline: a root
# file system holding this machine's own node binary and the shared libraries it links (found with
# ldd), /usr/bin/env for the CLI's `#!/usr/bin/env node` line, a passwd entry for the non-root user
# and a writable /tmp; imported with `buildah from scratch`, `buildah copy`, `buildah commit`.
# The layout mirrors the official node images (node in /usr/local/bin, user 1000 named node).
#
# Usage: scripts/merge-image/local-base.sh   → prints the image name (built once per node version)
set -euo pipefail
node_bin="$(command -v node)"
node_version="$("$node_bin" --version)"
image="localhost/kube-inference/node-base:${node_version}"

if buildah inspect --type image "$image" >/dev/null 2>&1; then
  echo "$image"
  exit 0
fi

rootfs="$(mktemp -d)"
container=""
cleanup() {
  rm -rf "$rootfs"
  if [ -n "$container" ]; then buildah rm "$container" >/dev/null 2>&1 || true; fi
}
trap cleanup EXIT

install -D -m 0755 "$node_bin" "$rootfs/usr/local/bin/node"
install -D -m 0755 "$(command -v env)" "$rootfs/usr/bin/env"
# Every library either program loads, at the path the dynamic loader looks for it.
for lib in $( { ldd "$node_bin"; ldd "$(command -v env)"; } | grep -oE '/[^ ]+' | sort -u); do
  install -D -m 0755 "$(readlink -f "$lib")" "$rootfs$lib"
done
mkdir -p "$rootfs/etc" "$rootfs/home/node"
printf 'root:x:0:0:root:/root:/sbin/nologin\nnode:x:1000:1000::/home/node:/sbin/nologin\n' > "$rootfs/etc/passwd"
printf 'root:x:0:\nnode:x:1000:\n' > "$rootfs/etc/group"
install -d -m 1777 "$rootfs/tmp"
chown 1000:1000 "$rootfs/home/node"

container="$(buildah from scratch)"
buildah copy --quiet "$container" "$rootfs" / >/dev/null
buildah config --env PATH=/usr/local/bin:/usr/bin:/bin --env NODE_VERSION="${node_version#v}" "$container"
buildah commit --quiet "$container" "$image" >/dev/null
echo "$image"
