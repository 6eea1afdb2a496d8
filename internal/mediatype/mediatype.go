// Package mediatype reads the Accept and Content-Type headers the way
// docs/protocol.md decision 3 asks: exact media types, q-values, nothing inferred from
// wildcards.
package mediatype

import (
	"strconv"
	"strings"
)

// Accepts reports whether the Accept header's values list mediaType itself
// (case-insensitively, parameters other than q ignored) with q > 0.
// Wildcards such as */* or application/* never count. A malformed q counts
// as 0; a malformed range is skipped. Several Accept lines count as one
// list (RFC 9110, 5.3), and commas inside quoted parameters do not split.
func Accepts(accept []string, mediaType string) bool {
	if len(accept) == 1 && accept[0] == mediaType {
		return true // the header as clients most often send it: nothing to parse
	}
	return Quality(accept, mediaType) > 0
}

// Quality returns the q-value the Accept header's values give mediaType
// itself, the highest when it is listed more than once; 0 when it is not
// listed (wildcards never count, as in [Accepts]).
func Quality(accept []string, mediaType string) float64 {
	best := 0.0
	for _, line := range accept {
		for rng := range splitUnquoted(line, ',') {
			typ, params, _ := strings.Cut(rng, ";")
			if strings.EqualFold(strings.TrimSpace(typ), mediaType) {
				best = max(best, q(params))
			}
		}
	}
	return best
}

// splitUnquoted yields the parts of s between seps that are outside
// double-quoted strings (with backslash escapes, RFC 9110, 5.6.4).
func splitUnquoted(s string, sep byte) func(yield func(string) bool) {
	return func(yield func(string) bool) {
		start, quoted := 0, false
		for i := 0; i < len(s); i++ {
			switch c := s[i]; {
			case quoted && c == '\\':
				i++
			case c == '"':
				quoted = !quoted
			case !quoted && c == sep:
				if !yield(s[start:i]) {
					return
				}
				start = i + 1
			}
		}
		yield(s[start:])
	}
}

// q returns the q-value among a media range's parameters: 1 when absent, 0
// when malformed or out of [0, 1].
func q(params string) float64 {
	for p := range splitUnquoted(params, ';') {
		k, v, ok := strings.Cut(p, "=")
		if !ok || !strings.EqualFold(strings.TrimSpace(k), "q") {
			continue
		}
		v = strings.TrimSpace(v)
		// RFC 9110: qvalue = ( "0" [ "." 0*3DIGIT ] ) / ( "1" [ "." 0*3("0") ] )
		if len(v) == 0 || len(v) > 5 || (v[0] != '0' && v[0] != '1') {
			return 0
		}
		f, err := strconv.ParseFloat(v, 64)
		if err != nil || f < 0 || f > 1 || strings.ContainsAny(v, "eE+-xX_pP") {
			return 0
		}
		return f
	}
	return 1
}

// Is reports whether a Content-Type header value names mediaType, whatever
// its parameters.
func Is(contentType, mediaType string) bool {
	typ, _, _ := strings.Cut(contentType, ";")
	return strings.EqualFold(strings.TrimSpace(typ), mediaType)
}
