package webmcp

import (
	"net/http"
	"strings"
)

// Headers returns why a browser refuses every tool a page whose response
// carries h registers, one sentence a reason, nil when nothing in h
// stops it; origin is the page's ("https://shop.example"). The draft's
// registerTool rejects unless the page's agent cluster is origin-keyed
// (Origin-Agent-Cluster: ?0 makes it site-keyed: SecurityError) and the
// permissions policy allows the "tools" feature for the page's own origin
// (its default; a Permissions-Policy that names tools and leaves the page
// out: NotAllowedError). A header the browser cannot parse is ignored, by
// the browser as here (RFC 9651).
func Headers(h http.Header, origin string) []string {
	var why []string
	if oac, ok := parseItem(strings.Join(h.Values("Origin-Agent-Cluster"), ",")); ok && oac.value == false {
		why = append(why, "Origin-Agent-Cluster: ?0 keys the page's agent cluster by site, and registerTool then refuses every tool (SecurityError)")
	}
	if pp := h.Values("Permissions-Policy"); len(pp) > 0 {
		if d, ok := parseDictionary(strings.Join(pp, ",")); ok {
			if m, named := d["tools"]; named && !allows(m, origin) {
				why = append(why, "Permissions-Policy: tools="+m.text+" does not allow the page's own origin, and registerTool then refuses every tool (NotAllowedError); allow it with tools=(self)")
			}
		}
	}
	return why
}

// allows reports whether an allowlist, a member of Permissions-Policy,
// lets origin use its feature: *, self, or origin itself, alone or in an
// inner list.
func allows(m member, origin string) bool {
	items := m.list
	if !m.inner {
		items = []item{m.item}
	}
	for _, it := range items {
		switch v := it.value.(type) {
		case token:
			if v == "*" || v == "self" {
				return true
			}
		case string:
			if strings.EqualFold(strings.TrimSuffix(v, "/"), origin) {
				return true
			}
		}
	}
	return false
}
