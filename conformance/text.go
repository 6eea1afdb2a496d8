package conformance

import (
	"html"
	"regexp"
	"sort"
	"strings"

	"github.com/affordances/affordances-go/internal/htmlcheck"
)

func parseHTML(body []byte) (*htmlcheck.Page, error) { return htmlcheck.Parse(body) }

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

// graphHref is the relative URL of the graph that the HTML of the page at
// path links: its query kept, then affordances=1 (docs/protocol.md decision 3).
func graphHref(path string) string {
	if _, query, ok := strings.Cut(path, "?"); ok && query != "" {
		return "?" + query + "&affordances=1"
	}
	return "?affordances=1"
}

var (
	// linkValue matches one link-value of a Link header: its target and
	// its parameters.
	linkValue = regexp.MustCompile(`<([^>]*)>([^<]*)`)
	// relAffordances matches the parameter rel="affordances".
	relAffordances = regexp.MustCompile(`(?i);\s*rel\s*=\s*"?affordances"?\s*(;|,|$)`)
	// cssString escapes a value for a quoted CSS attribute selector.
	cssString = strings.NewReplacer(`\`, `\\`, `"`, `\"`)
)
