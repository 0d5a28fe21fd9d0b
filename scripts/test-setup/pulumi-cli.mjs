#!/usr/bin/env node
// Builds the real Pulumi CLI, its Node.js language host and the Kubernetes provider from the Go module proxy,
// for test/apiserver/pulumi-up.test.ts (`pulumi up` of examples/pulumi-app against the real API server).
// GitHub, where Pulumi publishes its binaries, is not reachable here; the proxy is. One module each in
// test/pulumi-cli/<dir> (go.mod, go.sum); each writes its index <cache>/pulumi-<dir>.json. See go-build.mjs.
// Arguments name the directories to build (`node pulumi-cli.mjs kubernetes-provider`); none builds all three.
//
//   - cli: github.com/pulumi/pulumi/pkg/v3/cmd/pulumi at v3.274.1.
//   - language-host: pulumi-language-nodejs from github.com/pulumi/pulumi/sdk/v3 at v3.68.0, the newest
//     release of that module that still holds it (v3.69.0 and later moved it to its own module,
//     github.com/pulumi/pulumi/sdk/nodejs/cmd/pulumi-language-nodejs/v3, which the proxy refuses (403) at
//     every version; v3.68.1 is refused too). This older language host runs programs of the newer Node.js
//     SDK with the newer CLI (they talk gRPC), with one limit: it proxies the engine's resource monitor to
//     the program, and its proxy lacks the methods added since (engine-side transforms, for instance).
//   - kubernetes-provider: cmd/pulumi-resource-kubernetes of github.com/pulumi/pulumi-kubernetes/provider/v4
//     at v4.0.0-20260115033456-f47bc2d6f199, the only version the proxy serves (the tagged releases are
//     refused, 403). The command embeds schema-embed.json and terraform-mapping-embed.json, which its
//     `go generate` (generate.go: the schema with its version set, both files re-serialized) writes before
//     upstream's release build and the module zip therefore lacks: it is built from a copy of its directory
//     after that same `go generate` (go-build.mjs `generate`). It is labelled with its own version, not a
//     release's: the CLI then warns that @pulumi/kubernetes expects a newer provider, which the test expects.
//
// Each binary carries the version it is built from (a build from the module proxy has no release stamp).
import { setUpGoPrograms } from './go-build.mjs';

/** The programs to build (their directories under test/pulumi-cli/), all when none is named: all.mjs builds the provider beside the rest. */
const only = process.argv.slice(2);
const wanted = (dir) => only.length === 0 || only.includes(dir);

const WHAT = 'The example Pulumi program is not deployed with the real Pulumi CLI in this run';
const PULUMI = 'v3.274.1';
const LANGUAGE_HOST = 'v3.68.0';
const KUBERNETES_PROVIDER = '4.0.0-20260115033456-f47bc2d6f199';

/** The ldflags that stamp a Pulumi CLI or SDK program with its release. */
const pulumiVersion = (version) => `-X github.com/pulumi/pulumi/sdk/v3/go/common/version.Version=${version}`;

if (wanted('cli')) setUpGoPrograms({
  name: 'pulumi-cli',
  module: 'pulumi-cli/cli',
  binaries: { pulumi: { pkg: 'github.com/pulumi/pulumi/pkg/v3/cmd/pulumi', ldflags: pulumiVersion(PULUMI) } },
  what: WHAT,
  info: { version: PULUMI },
});

if (wanted('language-host')) setUpGoPrograms({
  name: 'pulumi-language-host',
  module: 'pulumi-cli/language-host',
  binaries: {
    'pulumi-language-nodejs': { pkg: 'github.com/pulumi/pulumi/sdk/v3/nodejs/cmd/pulumi-language-nodejs', ldflags: pulumiVersion(LANGUAGE_HOST) },
  },
  what: WHAT,
  info: { version: LANGUAGE_HOST },
});

if (wanted('kubernetes-provider')) setUpGoPrograms({
  name: 'pulumi-kubernetes-provider',
  module: 'pulumi-cli/kubernetes-provider',
  binaries: {
    'pulumi-resource-kubernetes': {
      pkg: 'github.com/pulumi/pulumi-kubernetes/provider/v4/cmd/pulumi-resource-kubernetes',
      ldflags: `-X github.com/pulumi/pulumi-kubernetes/provider/v4/pkg/version.Version=${KUBERNETES_PROVIDER}`,
      // generate.go sets this as the schema's version.
      generate: { VERSION: KUBERNETES_PROVIDER },
    },
  },
  what: WHAT,
  info: { version: KUBERNETES_PROVIDER },
});
