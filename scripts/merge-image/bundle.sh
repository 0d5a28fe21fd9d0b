#!/usr/bin/env bash
# Bundles the kube-inference CLI (src/cli/main.ts and everything it imports, yaml included) into one
# CommonJS file, DIR/kube-inference.cjs, with the init scripts beside it (the bundle reads them from its
# own directory; `write-init-scripts` copies them into the pods): the build context of
# containers/merge/Containerfile. The bundle keeps main.ts's `#!/usr/bin/env node` line, so the image can
# run it as `kube-inference`. `validate --server`'s client library stays out: the image merges configs
# and talks to no cluster.
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
  --outfile="$out_dir/kube-inference.cjs"
chmod 0755 "$out_dir/kube-inference.cjs"
# The scripts src/llama-stack/scripts/index.ts names (SCRIPT_FILES): every shell and Python file there.
cp "$repo"/src/llama-stack/scripts/*.sh "$repo"/src/llama-stack/scripts/*.py "$out_dir/"
