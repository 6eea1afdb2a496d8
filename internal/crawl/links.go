package crawl

import (
	"net/http"
	"strings"
)

// The Link relations by which a page of a site under a path prefix names
// its site index and its AAL manifest, where a proxy that forwards only
// the prefix serves them (docs/protocol.md decision 13).
const (
	RelIndex    = "affordances-index"
	RelManifest = "agent-affordances"
)

// DocumentLinks returns the targets of h's Link headers by their rel, the
// first of each: those that are paths of this site ([IsPath]), without a
// fragment, others ignored.
func DocumentLinks(h http.Header) map[string]string {
	links := map[string]string{}
	for _, v := range h.Values("Link") {
		for link := range strings.SplitSeq(v, ",") {
			target, params, ok := strings.Cut(strings.TrimSpace(link), ">")
			target, found := strings.CutPrefix(target, "<")
			if !ok || !found || !IsPath(target) || strings.Contains(target, "#") {
				continue
			}
			for p := range strings.SplitSeq(params, ";") {
				if rel, ok := strings.CutPrefix(strings.TrimSpace(p), "rel="); ok {
					if rel = strings.Trim(rel, `"`); rel != "" && links[rel] == "" {
						links[rel] = target
					}
				}
			}
		}
	}
	return links
}
