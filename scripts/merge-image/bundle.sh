#!/usr/bin/env bash
# Bundles the kube-inference CLI (src/cli/main.ts and everything it imports, yaml included) into one
# CommonJS file, DIR/kube-inference.bundle.cjs, beside the launcher that loads it with V8's code cache,
# DIR/kube-inference.cjs (src/cli/launcher.ts, the package's `bin`: the same file, the same cache), with
# the init scripts beside them (the bundle reads them from its own directory; `write-init-scripts` copies
# them into the pods) and, in DIR/warm-up/, the warm-up that writes the image's code cache at build
# (containers/merge/warm-up/): the build context of containers/merge/Containerfile. The launcher starts
# with `#!/usr/bin/env node`, so the image can run it as `kube-inference`. `validate --server`'s client
# library stays out: the image merges configs and talks to no cluster.
#
# Usage: scripts/merge-image/bundle.sh DIR
set -euo pipefail
out_dir="${1:?usage: bundle.sh DIR}"
repo="$(cd "$(dirname "$0")/../.." && pwd)"
mkdir -p "$out_dir"
"$repo/node_modules/.bin/esbuild" "$repo/src/cli/main.ts" \
  --bundle --platform=node --target=node20 --format=cjs \
  --legal-comments=none --log-level=warning \
  --external:@kubernetes/client-node \
  --outfile="$out_dir/kube-inference.bundle.cjs"
# The launcher as tsc compiles it for the package's bin (its imports are Node's own modules).
"$repo/node_modules/.bin/esbuild" "$repo/src/cli/launcher.ts" \
  --platform=node --target=node20 --format=cjs --log-level=warning \
  --banner:js='#!/usr/bin/env node' \
  --outfile="$out_dir/kube-inference.cjs"
chmod 0755 "$out_dir/kube-inference.cjs"
rm -rf "$out_dir/warm-up"
cp -R "$repo/containers/merge/warm-up" "$out_dir/warm-up"
# The scripts src/llama-stack/scripts/index.ts names (SCRIPT_FILES): every shell and Python file there.
cp "$repo"/src/llama-stack/scripts/*.sh "$repo"/src/llama-stack/scripts/*.py "$out_dir/"
