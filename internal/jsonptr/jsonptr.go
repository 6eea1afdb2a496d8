// Package jsonptr writes and reads JSON Pointers (RFC 6901), the paths of
// issues and problems in the library's errors.
package jsonptr

import (
	"errors"
	"strconv"
	"strings"
)

// Escape escapes a reference token: "~" is written "~0" and "/" is "~1".
func Escape(token string) string {
	if !strings.ContainsAny(token, "~/") {
		return token
	}
	return strings.ReplaceAll(strings.ReplaceAll(token, "~", "~0"), "/", "~1")
}

// Append returns the pointer to token inside the value ptr points to.
func Append(ptr, token string) string { return ptr + "/" + Escape(token) }

// Format returns the pointer of tokens; no tokens is "", the whole document.
func Format(tokens []string) string {
	var b strings.Builder
	for _, t := range tokens {
		b.WriteByte('/')
		b.WriteString(Escape(t))
	}
	return b.String()
}

// Split returns the reference tokens of ptr, unescaped; "" has none. A
// pointer that does not start with "/", or holds a "~" not followed by 0
// or 1, is an error.
func Split(ptr string) ([]string, error) {
	if ptr == "" {
		return nil, nil
	}
	if ptr[0] != '/' {
		return nil, errors.New(`jsonptr: a pointer starts with "/"`)
	}
	toks := strings.Split(ptr[1:], "/")
	for i, t := range toks {
		if !strings.Contains(t, "~") {
			continue
		}
		var b strings.Builder
		for j := 0; j < len(t); j++ {
			if t[j] != '~' {
				b.WriteByte(t[j])
				continue
			}
			if j+1 == len(t) || (t[j+1] != '0' && t[j+1] != '1') {
				return nil, errors.New(`jsonptr: "~" is followed by 0 or 1`)
			}
			b.WriteByte("~/"[t[j+1]-'0'])
			j++
		}
		toks[i] = b.String()
	}
	return toks, nil
}

// Get returns the value ptr points to in doc, a document decoded into
// map[string]any and []any, and whether there is one.
func Get(doc any, ptr string) (any, bool) {
	toks, err := Split(ptr)
	if err != nil {
		return nil, false
	}
	v := doc
	for _, tok := range toks {
		switch x := v.(type) {
		case map[string]any:
			var ok bool
			if v, ok = x[tok]; !ok {
				return nil, false
			}
		case []any:
			i, ok := index(tok)
			if !ok || i >= len(x) {
				return nil, false
			}
			v = x[i]
		default:
			return nil, false
		}
	}
	return v, true
}

// index reads an array index: "0", or digits that do not start with 0.
func index(tok string) (int, bool) {
	if tok == "" || (len(tok) > 1 && tok[0] == '0') || strings.Trim(tok, "0123456789") != "" {
		return 0, false
	}
	i, err := strconv.Atoi(tok)
	return i, err == nil
}
