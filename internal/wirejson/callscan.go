package wirejson

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"strconv"
	"sync"
	"unicode/utf16"
	"unicode/utf8"
)

// ReadBody reads r to its end, as io.ReadAll does, but no more than limit
// bytes: past them it returns [ErrTooLarge]. It appends to dst[:0] (a
// pooled buffer) when that has room for size bytes and one more, size
// being the request's Content-Length, bounded, when known; else into a
// new slice of that room: a call is read in one pass, with no allocation
// when dst has room.
func ReadBody(dst []byte, r io.Reader, size, limit int64) ([]byte, error) {
	b := dst[:0]
	if room := max(size+1, 512); int64(cap(b)) < room {
		b = make([]byte, 0, room)
	}
	for {
		n, err := r.Read(b[len(b):cap(b)])
		b = b[:len(b)+n]
		if int64(len(b)) > limit {
			return b, ErrTooLarge
		}
		if err != nil {
			if err == io.EOF {
				err = nil
			}
			return b, err
		}
		if len(b) == cap(b) {
			b = append(b, 0)[:len(b)]
		}
	}
}

// ErrTooLarge is [ReadBody]'s error for a body past its limit.
var ErrTooLarge = errors.New("wirejson: the body is larger than its limit")

// Bounds on a call's body beyond its size (docs/protocol.md decision 2): validating
// costs time in the number of values and in the size of numbers, so both
// are bounded before any schema runs.
const (
	MaxDepth     = 64     // nesting of arrays and objects
	MaxValues    = 10_000 // values of any kind
	MaxNumberLen = 64     // characters of one number
)

// A Refusal is the refusal of a call's body: the sentence the agent reads,
// as the caller sends it in its own invalid_input error, Format with Args,
// Format a key of the root package's catalogue (i18n.go), so that the
// caller can say it in another language.
type Refusal struct {
	Format string
	Args   []any
}

// refusal returns the Refusal of format, a string literal, and args.
func refusal(format string, args ...any) *Refusal {
	return &Refusal{Format: format, Args: args}
}

// A Call is what a call's body holds of the members the protocol reads,
// each nil when the body has none: the value of "action" when it is a
// string, "input" and "confirm" as written (slices of the body).
type Call struct {
	Action         []byte
	Input, Confirm []byte
}

// ScanCall checks a call's body and returns the members a call reads. It
// refuses, in this order: invalid UTF-8; then, in one pass, the first
// token that breaks the JSON grammar or a bound (a name twice in one
// object, nesting beyond [MaxDepth], more than [MaxValues] values, names
// included, a number longer than [MaxNumberLen] characters or beyond a
// 64-bit float, a string escaping half of a surrogate pair alone); then a
// body that is not one object. The refusal is a *Refusal, not an error, so
// that the caller reads its Format and Args without an assertion.
func ScanCall(body []byte) (Call, *Refusal) {
	if !utf8.Valid(body) {
		// encoding/json would read each bad byte as U+FFFD: another input
		// than the one sent.
		return Call{}, refusal("The call is not valid UTF-8 (RFC 8259, section 8.1).")
	}
	var s callScan
	if err := s.scan(body); err != nil {
		return Call{}, err
	}
	if s.tops != 1 || !s.object {
		return Call{}, notCall()
	}
	c := Call{Input: s.input, Confirm: s.confirm}
	if a := s.action; len(a) > 0 && a[0] == '"' {
		c.Action, _ = (&callScan{b: a}).str() // scanned already
	}
	return c, nil
}

// A callScan is one pass over a call's body (see [ScanCall]): it checks
// the JSON and the bounds, in the order of the body, and keeps the raw
// values of the top-level members a Call reads.
type callScan struct {
	b      []byte
	i      int
	values int
	// names holds the names of the objects open, each object's after its
	// parent's; a set takes over for an object with many.
	names [][]byte
	err   *Refusal

	checked bool // a DecodePlan's: it asks the schema's rules, each name once

	tops                   int  // top-level values read
	object                 bool // the first of them is an object
	action, input, confirm []byte
}

// notCall is the refusal of a body that is not JSON, or not one object.
func notCall() *Refusal {
	return refusal("The body is not a Call: a JSON object with an \"action\".")
}

// scan reads body, valid UTF-8, as a stream of JSON values as
// encoding/json's Decoder would token by token, and refuses it at the first
// token that breaks the JSON grammar or a bound: nesting, the count of
// values (names included), the length and range of a number, a name twice
// in one object, a string escaping half of a surrogate pair alone.
func (s *callScan) scan(body []byte) *Refusal {
	names := scanNames.Get().(*[][]byte)
	defer func() {
		clear((*names)[:cap(*names)]) // holds no body beyond its call
		*names = (*names)[:0]
		scanNames.Put(names)
	}()
	s.b, s.names = body, (*names)[:0]
	for {
		s.space()
		if s.i == len(s.b) {
			return nil
		}
		s.tops++
		if !s.value(0) {
			return s.err
		}
	}
}

func (s *callScan) space() {
	for s.i < len(s.b) {
		switch s.b[s.i] {
		case ' ', '\t', '\n', '\r':
			s.i++
		default:
			return
		}
	}
}

func (s *callScan) fail(e *Refusal) bool {
	s.err = e
	return false
}

// count counts one more value, or name.
func (s *callScan) count() bool {
	if s.values++; s.values > MaxValues {
		return s.fail(refusal("The call holds more than %d values.", MaxValues))
	}
	return true
}

// value reads one value at s.i (no space before it) inside depth open
// arrays and objects.
func (s *callScan) value(depth int) bool {
	if s.i == len(s.b) {
		return s.fail(notCall())
	}
	switch c := s.b[s.i]; {
	case c == '{' || c == '[':
		if !s.count() {
			return false
		}
		if depth >= MaxDepth {
			return s.fail(refusal("The call is nested deeper than %d levels.", MaxDepth))
		}
		s.i++
		if c == '{' {
			return s.objectBody(depth + 1)
		}
		return s.arrayBody(depth + 1)
	case c == '"':
		if _, err := s.str(); err != nil {
			return s.fail(err)
		}
		return s.count()
	case c == '-' || '0' <= c && c <= '9':
		start := s.i
		if !s.number() {
			return s.fail(notCall())
		}
		if !s.count() {
			return false
		}
		// An integer of at most MaxNumberLen digits fits: only a fraction
		// or an exponent can take a number past a 64-bit float.
		if n := s.b[start:s.i]; len(n) > MaxNumberLen || bytes.ContainsAny(n, ".eE") && !fitsFloat(n) {
			return s.fail(refusal("The call holds a number that does not fit a 64-bit float in %d characters.", MaxNumberLen))
		}
		return true
	default:
		var lit string
		switch c {
		case 't':
			lit = "true"
		case 'f':
			lit = "false"
		case 'n':
			lit = "null"
		}
		if lit == "" || !bytes.HasPrefix(s.b[s.i:], []byte(lit)) {
			return s.fail(notCall())
		}
		s.i += len(lit)
		return s.count()
	}
}

func fitsFloat(n []byte) bool {
	_, err := strconv.ParseFloat(string(n), 64)
	return err == nil
}

func (s *callScan) arrayBody(depth int) bool {
	s.space()
	if s.i < len(s.b) && s.b[s.i] == ']' {
		s.i++
		return true
	}
	for {
		s.space()
		if !s.value(depth) {
			return false
		}
		s.space()
		if s.i == len(s.b) {
			return s.fail(notCall())
		}
		switch s.b[s.i] {
		case ',':
			s.i++
		case ']':
			s.i++
			return true
		default:
			return s.fail(notCall())
		}
	}
}

// scanNames holds the names' slices of scans done, for the next.
var scanNames = sync.Pool{New: func() any { s := make([][]byte, 0, manyNames+1); return &s }}

// manyNames is how many names an object's duplicates are looked for among
// one by one, before a set.
const manyNames = 16

func (s *callScan) objectBody(depth int) bool {
	top := depth == 1 && s.tops == 1
	if top {
		s.object = true
	}
	first := len(s.names)
	defer func() { s.names = s.names[:first] }()
	var set map[string]bool
	s.space()
	if s.i < len(s.b) && s.b[s.i] == '}' {
		s.i++
		return true
	}
	for {
		s.space()
		if s.i == len(s.b) || s.b[s.i] != '"' {
			return s.fail(notCall())
		}
		name, err := s.str()
		if err != nil {
			return s.fail(err)
		}
		if !s.count() {
			return false
		}
		// A name sent twice would be read as its last value by one reader
		// and its first by another: refused.
		seen := false
		if set != nil {
			seen = set[string(name)]
			set[string(name)] = true
		} else {
			for _, n := range s.names[first:] {
				if bytes.Equal(n, name) {
					seen = true
					break
				}
			}
			s.names = append(s.names, name)
			if len(s.names)-first > manyNames {
				set = map[string]bool{}
				for _, n := range s.names[first:] {
					set[string(n)] = true
				}
			}
		}
		if seen {
			return s.fail(refusal("The call names %q twice in one object.", string(name)))
		}
		s.space()
		if s.i == len(s.b) || s.b[s.i] != ':' {
			return s.fail(notCall())
		}
		s.i++
		s.space()
		start := s.i
		if !s.value(depth) {
			return false
		}
		if top {
			switch string(name) {
			case "action":
				s.action = s.b[start:s.i]
			case "input":
				s.input = s.b[start:s.i]
			case "confirm":
				s.confirm = s.b[start:s.i]
			}
		}
		s.space()
		if s.i == len(s.b) {
			return s.fail(notCall())
		}
		switch s.b[s.i] {
		case ',':
			s.i++
		case '}':
			s.i++
			return true
		default:
			return s.fail(notCall())
		}
	}
}

// str reads the string at s.i and returns its value: the bytes between the
// quotes as they are when they hold no escape, else decoded. A string that
// is not JSON is [notCall]; one that escapes half of a surrogate pair
// without its other half, which encoding/json would read as U+FFFD, is
// refused by [loneSurrogate].
func (s *callScan) str() ([]byte, *Refusal) {
	start := s.i
	s.i++
	escaped := false
	lone := -1 // where the first half without its other half is
	for s.i < len(s.b) {
		// The bytes a string holds as they are, in locals: a loop on s.i
		// reads and writes memory on each byte.
		b, i := s.b, s.i
		for i < len(b) && inString[b[i]] {
			i++
		}
		if s.i = i; i == len(b) {
			break
		}
		switch c := b[i]; {
		case c == '"':
			s.i++
			switch {
			case lone >= 0:
				return nil, loneSurrogate(s.b[lone : lone+6])
			case !escaped:
				return s.b[start+1 : s.i-1], nil
			}
			var v string
			if json.Unmarshal(s.b[start:s.i], &v) != nil {
				return nil, notCall()
			}
			return []byte(v), nil
		case c == '\\':
			escaped = true
			if s.i+1 == len(s.b) {
				return nil, notCall()
			}
			switch s.b[s.i+1] {
			case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
				s.i += 2
			case 'u':
				r, ok := s.escapedRune(s.i)
				if !ok {
					return nil, notCall()
				}
				s.i += 6
				if !utf16.IsSurrogate(r) {
					break
				}
				if low, ok := s.escapedRune(s.i); ok && utf16.DecodeRune(r, low) != utf8.RuneError {
					s.i += 6
				} else if lone < 0 {
					lone = s.i - 6
				}
			default:
				return nil, notCall()
			}
		default: // a control character
			return nil, notCall()
		}
	}
	return nil, notCall()
}

// inString says which bytes a JSON string holds as they are: all but ",
// \ and the control characters below the space.
var inString = func() (in [256]bool) {
	for c := range in {
		in[c] = c >= 0x20 && c != '"' && c != '\\'
	}
	return in
}()

// escapedRune reads the escape \uXXXX at i and reports whether there is one.
func (s *callScan) escapedRune(i int) (rune, bool) {
	if i+6 > len(s.b) || s.b[i] != '\\' || s.b[i+1] != 'u' {
		return 0, false
	}
	var r rune
	for _, h := range s.b[i+2 : i+6] {
		switch {
		case '0' <= h && h <= '9':
			r = r<<4 | rune(h-'0')
		case 'a' <= h && h <= 'f':
			r = r<<4 | rune(h-'a'+10)
		case 'A' <= h && h <= 'F':
			r = r<<4 | rune(h-'A'+10)
		default:
			return 0, false
		}
	}
	return r, true
}

// loneSurrogate is the refusal of a string that escapes half of a UTF-16
// surrogate pair without its other half (esc, as written): no character
// (RFC 8259, section 8.2), which encoding/json would read as U+FFFD, so
// another input than the one sent.
func loneSurrogate(esc []byte) *Refusal {
	return refusal("The call holds the escape %s, half of a UTF-16 surrogate pair without its other half: no character (RFC 8259, section 8.2).", string(esc))
}

// number reads the number at s.i: -?(0|[1-9][0-9]*)(.[0-9]+)?([eE][+-]?[0-9]+)?
func (s *callScan) number() bool {
	digits := func() bool {
		start := s.i
		for s.i < len(s.b) && '0' <= s.b[s.i] && s.b[s.i] <= '9' {
			s.i++
		}
		return s.i > start
	}
	if s.b[s.i] == '-' {
		s.i++
	}
	if s.i == len(s.b) {
		return false
	}
	if s.b[s.i] == '0' {
		s.i++
	} else if !digits() {
		return false
	}
	if s.i < len(s.b) && s.b[s.i] == '.' {
		s.i++
		if !digits() {
			return false
		}
	}
	if s.i < len(s.b) && (s.b[s.i] == 'e' || s.b[s.i] == 'E') {
		s.i++
		if s.i < len(s.b) && (s.b[s.i] == '+' || s.b[s.i] == '-') {
			s.i++
		}
		if !digits() {
			return false
		}
	}
	return true
}
