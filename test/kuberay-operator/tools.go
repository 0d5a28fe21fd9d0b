//go:build tools

// The KubeRay operator for the single-node cluster (test/cluster/kuberay.test.ts), built from its own
// module at the release of the library's KubeRay tests: `go build github.com/ray-project/kuberay/ray-operator`
// (scripts/test-setup/kubernetes.mjs). This file only makes the module require it: a main package is
// never imported by a build, and the `tools` tag keeps this file out of every build.
package tools

import _ "github.com/ray-project/kuberay/ray-operator"
