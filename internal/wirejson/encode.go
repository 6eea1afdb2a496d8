package wirejson

import (
	"encoding/json"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"sync"
	"unicode/utf8"
)

// The encoders of this file write what json.Marshal writes for the same
// value, byte for byte (encode_test.go compares them), without
// encoding/json's reflection: an Affordances document is encoded on every
// request, its strings escaped as encoding/json escapes them, HTML
// characters included.

// AppendString appends s as a JSON string, escaped as json.Marshal escapes
// it: ", \ and control characters; <, > and & as \u003c, \u003e and
// \u0026; U+2028 and U+2029 as \u2028 and \u2029; each byte of invalid
// UTF-8 as \ufffd.
func AppendString(dst []byte, s string) []byte {
	const hex = "0123456789abcdef"
	dst = append(dst, '"')
	start := 0
	for i := 0; i < len(s); {
		if i += plainPrefix(s[i:]); i == len(s) {
			break
		}
		if b := s[i]; b < utf8.RuneSelf {
			dst = append(dst, s[start:i]...)
			switch b {
			case '\\', '"':
				dst = append(dst, '\\', b)
			case '\b':
				dst = append(dst, '\\', 'b')
			case '\f':
				dst = append(dst, '\\', 'f')
			case '\n':
				dst = append(dst, '\\', 'n')
			case '\r':
				dst = append(dst, '\\', 'r')
			case '\t':
				dst = append(dst, '\\', 't')
			default: // other control characters, <, > and &
				dst = append(dst, '\\', 'u', '0', '0', hex[b>>4], hex[b&0xF])
			}
			i++
			start = i
			continue
		}
		c, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case c == utf8.RuneError && size == 1:
			dst = append(dst, s[start:i]...)
			dst = append(dst, `\ufffd`...)
		case c == '\u2028' || c == '\u2029':
			dst = append(dst, s[start:i]...)
			dst = append(dst, '\\', 'u', '2', '0', '2', hex[c&0xF])
		default:
			i += size
			continue
		}
		i += size
		start = i
	}
	dst = append(dst, s[start:]...)
	return append(dst, '"')
}

// plainPrefix returns the length of the longest prefix of s that a JSON
// string holds as it is.
func plainPrefix(s string) int {
	for i := 0; i < len(s); i++ {
		if !plain[s[i]] {
			return i
		}
	}
	return len(s)
}

// plain says which bytes a JSON string holds as they are: the ASCII ones
// from the space on (DEL included) but ", \, <, > and &. Indexed by any
// byte, it is one load per byte of a string.
var plain = func() (plain [256]bool) {
	for b := byte(' '); b < utf8.RuneSelf; b++ {
		plain[b] = b != '"' && b != '\\' && b != '<' && b != '>' && b != '&'
	}
	return plain
}()

// AppendValue appends json.Marshal(v) to dst, or returns its error: strings,
// booleans and ints directly, plain data by its type's plan (encodeplan.go),
// any other value with encoding/json into dst. It is safe for concurrent use.
func AppendValue(dst []byte, v any) ([]byte, error) {
	switch v := v.(type) {
	case nil:
		return append(dst, "null"...), nil
	case string:
		return AppendString(dst, v), nil
	case bool:
		return strconv.AppendBool(dst, v), nil
	case int:
		return strconv.AppendInt(dst, int64(v), 10), nil
	case int64:
		return strconv.AppendInt(dst, v, 10), nil
	}
	if plan := planOf(reflect.TypeOf(v)); plan != nil {
		return plan(dst, reflect.ValueOf(v)), nil
	}
	enc := encoders.Get().(*appendEncoder)
	defer encoders.Put(enc)
	enc.buf = dst
	err := enc.enc.Encode(v) // writes v and a newline
	dst, enc.buf = enc.buf, nil
	if err != nil {
		return nil, err
	}
	return dst[:len(dst)-1], nil
}

// An appendEncoder is a json.Encoder that appends to buf.
type appendEncoder struct {
	enc *json.Encoder
	buf []byte
}

func (e *appendEncoder) Write(p []byte) (int, error) {
	e.buf = append(e.buf, p...)
	return len(p), nil
}

var encoders = sync.Pool{New: func() any {
	e := &appendEncoder{}
	e.enc = json.NewEncoder(e)
	return e
}}

// AppendObject appends json.Marshal(m) of a non-nil map, or returns its
// error: its keys in order, each value as [AppendValue] encodes it.
func AppendObject(dst []byte, m map[string]any) ([]byte, error) {
	type member struct {
		key   string
		value any
	}
	var room [16]member
	members := room[:0]
	for k, v := range m {
		members = append(members, member{k, v})
	}
	slices.SortFunc(members, func(a, b member) int { return strings.Compare(a.key, b.key) })
	dst = append(dst, '{')
	for i, mb := range members {
		if i > 0 {
			dst = append(dst, ',')
		}
		dst = AppendString(dst, mb.key)
		dst = append(dst, ':')
		var err error
		if dst, err = AppendValue(dst, mb.value); err != nil {
			return nil, err
		}
	}
	return append(dst, '}'), nil
}
