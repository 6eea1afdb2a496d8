// Package mediatype reads the Accept and Content-Type headers the way
// CLARIFICATIONS 3 asks: exact media types, q-values, nothing inferred from
// wildcards.
package mediatype

import (
	"strconv"
	"strings"
)

// Accepts reports whether the Accept header value lists mediaType itself
// (case-insensitively, parameters other than q ignored) with q > 0.
// Wildcards such as */* or application/* never count. A malformed q counts
// as 0; a malformed range is skipped.
func Accepts(accept, mediaType string) bool {
	for rng := range strings.SplitSeq(accept, ",") {
		typ, params, _ := strings.Cut(rng, ";")
		if !strings.EqualFold(strings.TrimSpace(typ), mediaType) {
			continue
		}
		if q(params) > 0 {
			return true
		}
	}
	return false
}

// q returns the q-value among a media range's parameters: 1 when absent, 0
// when malformed or out of [0, 1].
func q(params string) float64 {
	for p := range strings.SplitSeq(params, ";") {
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
