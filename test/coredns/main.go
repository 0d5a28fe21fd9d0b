// CoreDNS for the single-node cluster's DNS (test/cluster): upstream's own server (coremain) with the
// plugins kubeadm's Corefile uses and the cluster's serves with (test/cluster/cluster-dns.ts), in the
// order upstream's core/dnsserver/zdirectives.go gives them. A custom build as CoreDNS documents it
// (plugin.cfg, "external plugins"): the plugins left out (cloud DNS back ends and their SDKs) would only
// lengthen a cold build.
package main

import (
	"github.com/coredns/coredns/core/dnsserver"
	"github.com/coredns/coredns/coremain"

	_ "github.com/coredns/coredns/plugin/bind"
	_ "github.com/coredns/coredns/plugin/cache"
	_ "github.com/coredns/coredns/plugin/errors"
	_ "github.com/coredns/coredns/plugin/forward"
	_ "github.com/coredns/coredns/plugin/health"
	_ "github.com/coredns/coredns/plugin/kubernetes"
	_ "github.com/coredns/coredns/plugin/loadbalance"
	_ "github.com/coredns/coredns/plugin/log"
	_ "github.com/coredns/coredns/plugin/ready"
)

// built names the plugins imported above: a Corefile naming another fails with "unknown directive".
var built = map[string]bool{
	"bind": true, "cache": true, "errors": true, "forward": true, "health": true,
	"kubernetes": true, "loadbalance": true, "log": true, "ready": true,
}

func init() {
	var directives []string
	for _, d := range dnsserver.Directives {
		if built[d] {
			directives = append(directives, d)
		}
	}
	dnsserver.Directives = directives
}

func main() {
	coremain.Run()
}
