#!/usr/bin/env bash
# Bundles the kube-inference CLI (src/cli/main.ts and everything it imports, yaml included) into one
# CommonJS file, DIR/kube-inference.cjs: the build context of containers/merge/Containerfile. The
# bundle keeps main.ts's `#!/usr/bin/env node` line, so the image can run it as `kube-inference`.
# `validate --server`'s client library stays out: the image merges configs and talks to no cluster.
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
