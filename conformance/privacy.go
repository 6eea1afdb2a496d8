package conformance

import (
	"html"
	"regexp"
	"sort"
	"strings"
)

// privacyChecks are the checks that a graph shows nothing it should not
// (docs/protocol.md §7 and §26): no personal data in its URLs, and no
// entity the page's HTML does not show the same person.
func privacyChecks() []check {
	return []check{
		{"v0.privacy.urls", secSecurity, "URLs must not carry personal data (no email addresses, phone numbers or long secret-looking strings in page paths and nav targets).", Should, func(s *suite) verdict {
			return eachPage(s, func(p *page) (verdict, bool) {
				if what := personal(p.graph.Page); what != "" {
					return fail(p.graphX, "page %q carries %s", p.graph.Page, what), false
				}
				for _, n := range p.graph.Nav {
					if what := personal(n.To); what != "" {
						return fail(p.graphX, "nav target %q carries %s", n.To, what), false
					}
				}
				return verdict{}, true
			})
		}},
		{"v0.privacy.entities-in-html", secGraph, "entities must not contain anything the page would not show the same user in HTML (each string entity appears in the page's HTML).", Should, func(s *suite) verdict {
			return eachPage(s, func(p *page) (verdict, bool) {
				x, v, ok := s.pageHTML(p)
				if !ok {
					return v, false
				}
				text := htmlText(x.body)
				for _, str := range leafStrings(p.graph.Entities) {
					if !strings.Contains(text, str) {
						return fail(x, "entity string %q of %s is not in its HTML", str, p.path), false
					}
				}
				return verdict{}, true
			})
		}},
	}
}

// htmlText is the page's source with its entities decoded, so a string
// shown in text or an attribute is found as is.
func htmlText(body []byte) string { return html.UnescapeString(string(body)) }

// leafStrings returns the non-empty strings among v's values, sorted.
func leafStrings(v any) []string {
	var out []string
	var walk func(any)
	walk = func(v any) {
		switch x := v.(type) {
		case string:
			if strings.TrimSpace(x) != "" {
				out = append(out, x)
			}
		case map[string]any:
			for _, e := range x {
				walk(e)
			}
		case []any:
			for _, e := range x {
				walk(e)
			}
		}
	}
	walk(v)
	sort.Strings(out)
	return out
}

var (
	emailRE  = regexp.MustCompile(`[A-Za-z0-9._%+-]+(@|%40)[A-Za-z0-9.-]+\.[A-Za-z]{2,}`)
	phoneRE  = regexp.MustCompile(`(^|[^0-9A-Za-z])\+?\(?\d{2,4}\)?[ .\-]?\d{3}[ .\-]?\d{3,4}([^0-9A-Za-z]|$)`)
	secretRE = regexp.MustCompile(`[A-Za-z0-9_\-]{24,}`)
)

// personal says what personal or secret data s seems to carry, or "".
func personal(s string) string {
	switch {
	case emailRE.MatchString(s):
		return "an email address"
	case phoneRE.MatchString(strings.ReplaceAll(s, "%20", " ")):
		return "a phone number"
	}
	for _, m := range secretRE.FindAllString(s, -1) {
		if strings.ContainsAny(m, "0123456789") && strings.IndexFunc(m, func(r rune) bool { return r >= 'A' && r <= 'Z' || r >= 'a' && r <= 'z' }) >= 0 {
			return "a long secret-looking string"
		}
	}
	return ""
}
