package schema

import (
	"encoding/json"
	"math"
	"math/big"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"
)

// The fast path. A schema that [Compile] is given is also compiled, when
// it can be, into a fast validator that reads the raw JSON once, decodes
// nothing it does not need and checks integers as int64. It understands a
// subset of JSON Schema 2020-12, the keywords of the schemas inferred from
// Go types (internal/typeschema) and of typical hand-written ones: type,
// properties, required, additionalProperties, items, enum, const,
// minLength, maxLength, pattern, minimum, maximum, exclusiveMinimum,
// exclusiveMaximum, minItems, maxItems, and annotations (title,
// description, default, examples, ...).
//
// Its guarantee: it only ever answers "valid", and only when the library
// would too. Whenever it finds a problem or is not sure — a value under a
// schema with any other keyword (format, $ref, anyOf, multipleOf, ...), a
// number that is not an integer of at most 18 digits where a bound, an
// enum or "integer" asks about it (1.0, 1e3), a duplicate key, a string
// that is not valid UTF-8, JSON that is not well-formed, nesting deeper
// than 64 — [Schema.Validate] runs the library's validation, so every
// verdict and every message is the library's. FuzzFastPath and
// TestFastPathAgrees hold it to this against the library.

// Kinds of JSON value, as bits of a node's types.
const (
	kNull = 1 << iota
	kBool
	kObject
	kArray
	kString
	kInteger // an integer; kNumber includes it
	kNumber
	kAll = kNull | kBool | kObject | kArray | kString | kInteger | kNumber
)

// A Rule is the fast validator of one schema. Its exported methods answer
// for one value each, so that a decoder may check each value as it reads
// it (wirejson.DecodePlan) and read the input once, while the schema's
// rules stay here; the scanner below asks them the same questions. Each
// answers as the fast path does: true only when the library would accept
// the value too, false when it would not or the fast path is not sure. A
// nil Rule accepts any value: that of a member no property and no
// additionalProperties speaks of.
type Rule struct {
	unsure bool // a keyword it does not understand: defer to the library
	never  bool // the false schema
	types  int

	minLen, maxLen int // -1 for none
	pattern        *regexp.Regexp

	// Integers pass when lo <= n <= hi; bounded says a bound is set, so a
	// number that is not a small integer is left to the library.
	lo, hi  int64
	bounded bool

	enums []*valueSet // enum and const: the value must be in each

	props      []property // sorted by name
	required   []string
	additional *Rule // nil: any other property is allowed

	items              *Rule // nil: any item
	minItems, maxItems int   // -1 for none
}

// A property is the rule of an object's member of a name.
type property struct {
	name string
	rule *Rule
}

// A valueSet is the values of an enum or a const that a small integer,
// a string, a bool or null can equal (numbers compare by value); the
// others are left out, as an object, an array or any other number is left
// to the library.
type valueSet struct {
	strs  []string
	ints  []int64
	bools [2]bool // false, true
	null  bool
}

const draft2020 = "https://json-schema.org/draft/2020-12/schema"

// compileFast returns the fast validator of doc, a schema decoded with
// numbers as json.Number, or nil when its root is beyond the subset.
func compileFast(doc any) *Rule {
	n := ruleOf(doc)
	if n.unsure {
		return nil
	}
	return n
}

var unsure = &Rule{unsure: true}

// ruleOf returns the rule of doc, a schema decoded with numbers as
// json.Number: unsure when it holds a keyword beyond the subset.
func ruleOf(doc any) *Rule {
	n := &Rule{types: kAll, minLen: -1, maxLen: -1, minItems: -1, maxItems: -1, lo: math.MinInt64, hi: math.MaxInt64}
	switch doc := doc.(type) {
	case bool:
		n.never = !doc
		return n
	case map[string]any:
		for k, v := range doc {
			if !n.keyword(k, v) {
				return unsure
			}
		}
		return n
	}
	return unsure
}

// keyword applies the keyword k with value v to n, or says it cannot.
func (n *Rule) keyword(k string, v any) bool {
	switch k {
	case "title", "description", "default", "examples", "$comment", "deprecated", "readOnly", "writeOnly", "$id", "$defs":
		return true
	case "$schema":
		return v == draft2020
	case "type":
		n.types = 0
		names, ok := v.([]any)
		if !ok {
			names = []any{v}
		}
		for _, name := range names {
			switch name {
			case "null":
				n.types |= kNull
			case "boolean":
				n.types |= kBool
			case "object":
				n.types |= kObject
			case "array":
				n.types |= kArray
			case "string":
				n.types |= kString
			case "integer":
				n.types |= kInteger
			case "number":
				n.types |= kNumber | kInteger
			default:
				return false
			}
		}
		return true
	case "minLength", "maxLength", "minItems", "maxItems":
		num, _ := v.(json.Number)
		c, err := strconv.Atoi(string(num))
		if err != nil || c < 0 {
			return false
		}
		switch k {
		case "minLength":
			n.minLen = c
		case "maxLength":
			n.maxLen = c
		case "minItems":
			n.minItems = c
		default:
			n.maxItems = c
		}
		return true
	case "pattern":
		s, _ := v.(string)
		re, err := regexp.Compile(s)
		n.pattern = re
		return err == nil
	case "minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum":
		num, _ := v.(json.Number)
		r, ok := new(big.Rat).SetString(string(num))
		if !ok {
			return false
		}
		// The least or greatest int64 that passes, clamped: the integers
		// checked have at most 18 digits.
		floor := new(big.Int).Div(r.Num(), r.Denom()) // Euclidean: the floor, the denominator being positive
		ceil := new(big.Int).Set(floor)
		if !r.IsInt() {
			ceil.Add(ceil, big.NewInt(1))
		}
		switch k {
		case "minimum":
			n.lo = max(n.lo, clamp(ceil))
		case "exclusiveMinimum":
			n.lo = max(n.lo, clamp(floor.Add(floor, big.NewInt(1))))
		case "maximum":
			n.hi = min(n.hi, clamp(floor))
		case "exclusiveMaximum":
			n.hi = min(n.hi, clamp(ceil.Sub(ceil, big.NewInt(1))))
		}
		n.bounded = true
		return true
	case "enum", "const":
		vals, ok := v.([]any)
		if k == "const" {
			vals, ok = []any{v}, true
		}
		if !ok {
			return false
		}
		set := &valueSet{}
		for _, e := range vals {
			switch e := e.(type) {
			case nil:
				set.null = true
			case bool:
				set.bools[b2i(e)] = true
			case string:
				set.strs = append(set.strs, e)
			case json.Number:
				r, ok := new(big.Rat).SetString(string(e))
				if ok && r.IsInt() && r.Num().IsInt64() {
					set.ints = append(set.ints, r.Num().Int64())
				}
			}
		}
		n.enums = append(n.enums, set)
		return true
	case "properties":
		props, ok := v.(map[string]any)
		if !ok {
			return false
		}
		n.props = make([]property, 0, len(props))
		for name, p := range props {
			n.props = append(n.props, property{name, ruleOf(p)})
		}
		slices.SortFunc(n.props, func(a, b property) int { return strings.Compare(a.name, b.name) })
		return true
	case "required":
		names, ok := v.([]any)
		for _, name := range names {
			s, isStr := name.(string)
			if !isStr {
				return false
			}
			n.required = append(n.required, s)
		}
		return ok
	case "additionalProperties":
		n.additional = ruleOf(v)
		return true
	case "items":
		n.items = ruleOf(v)
		return true
	}
	return false
}

func clamp(x *big.Int) int64 {
	switch {
	case !x.IsInt64() && x.Sign() > 0:
		return math.MaxInt64
	case !x.IsInt64():
		return math.MinInt64
	}
	return x.Int64()
}

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}

// valid says doc is well-formed JSON that n accepts; false is "not sure".
func (n *Rule) valid(doc []byte) bool {
	sc := scanner{b: doc}
	if !sc.value(n, 0) {
		return false
	}
	sc.space()
	return sc.i == len(sc.b)
}

// A scanner reads JSON from b at i.
type scanner struct {
	b []byte
	i int
}

const maxDepth = 64

func (sc *scanner) space() {
	for sc.i < len(sc.b) {
		switch sc.b[sc.i] {
		case ' ', '\t', '\n', '\r':
			sc.i++
		default:
			return
		}
	}
}

// value reads one value and says whether n surely accepts it.
func (sc *scanner) value(n *Rule, depth int) bool {
	if depth > maxDepth {
		return false
	}
	sc.space()
	if sc.i == len(sc.b) {
		return false
	}
	switch c := sc.b[sc.i]; {
	case c == '{':
		return sc.object(n, depth)
	case c == '[':
		return sc.array(n, depth)
	case c == '"':
		s, ok := sc.str()
		return ok && n.String(s)
	case c == 't' || c == 'f' || c == 'n':
		for _, lit := range [...]string{"true", "false", "null"} {
			if len(sc.b)-sc.i >= len(lit) && string(sc.b[sc.i:sc.i+len(lit)]) == lit {
				sc.i += len(lit)
				return n.Literal(lit)
			}
		}
		return false
	case c == '-' || '0' <= c && c <= '9':
		return sc.number(n)
	}
	return false
}

func (sc *scanner) object(n *Rule, depth int) bool {
	if !n.Object() {
		return false
	}
	sc.i++ // {
	var buf [16][]byte
	keys := buf[:0]
	sc.space()
	if sc.i < len(sc.b) && sc.b[sc.i] == '}' {
		sc.i++
	} else {
		for {
			sc.space()
			if sc.i == len(sc.b) || sc.b[sc.i] != '"' {
				return false
			}
			key, ok := sc.str()
			if !ok || len(keys) == 256 {
				return false
			}
			for _, k := range keys {
				if string(k) == string(key) {
					return false // the library keeps the last: let it
				}
			}
			keys = append(keys, key)
			sc.space()
			if sc.i == len(sc.b) || sc.b[sc.i] != ':' {
				return false
			}
			sc.i++
			if !sc.value(n.Member(key), depth+1) {
				return false
			}
			sc.space()
			if sc.i == len(sc.b) {
				return false
			}
			sc.i++
			if sc.b[sc.i-1] == '}' {
				break
			}
			if sc.b[sc.i-1] != ',' {
				return false
			}
		}
	}
	return n.Complete(func(name string) bool {
		return slices.ContainsFunc(keys, func(k []byte) bool { return string(k) == name })
	})
}

func (sc *scanner) array(n *Rule, depth int) bool {
	if !n.Array() {
		return false
	}
	sc.i++ // [
	count := 0
	sc.space()
	if sc.i < len(sc.b) && sc.b[sc.i] == ']' {
		sc.i++
	} else {
		for {
			if !sc.value(n.Items(), depth+1) {
				return false
			}
			count++
			sc.space()
			if sc.i == len(sc.b) {
				return false
			}
			sc.i++
			if sc.b[sc.i-1] == ']' {
				break
			}
			if sc.b[sc.i-1] != ',' {
				return false
			}
		}
	}
	return n.Count(count)
}

// str reads a string and returns its value as encoding/json decodes it.
func (sc *scanner) str() ([]byte, bool) {
	start := sc.i
	sc.i++ // "
	escaped, ascii := false, true
	for ; sc.i < len(sc.b); sc.i++ {
		switch c := sc.b[sc.i]; {
		case c == '"':
			sc.i++
			raw := sc.b[start+1 : sc.i-1]
			if escaped {
				var s string
				if json.Unmarshal(sc.b[start:sc.i], &s) != nil {
					return nil, false
				}
				return []byte(s), true
			}
			return raw, ascii || utf8.Valid(raw)
		case c == '\\':
			escaped = true
			sc.i++
		case c < 0x20:
			return nil, false
		case c >= 0x80:
			ascii = false
		}
	}
	return nil, false
}

// number reads a number: a small integer (at most 18 digits, no fraction
// or exponent) n checks exactly; any other only when n asks nothing of it
// but to be a number.
func (sc *scanner) number(n *Rule) bool {
	start := sc.i
	if sc.b[sc.i] == '-' {
		sc.i++
	}
	digits := func() int {
		from := sc.i
		for sc.i < len(sc.b) && '0' <= sc.b[sc.i] && sc.b[sc.i] <= '9' {
			sc.i++
		}
		return sc.i - from
	}
	intDigits := digits()
	if intDigits == 0 || intDigits > 1 && sc.b[sc.i-intDigits] == '0' {
		return false
	}
	integer := true
	if sc.i < len(sc.b) && sc.b[sc.i] == '.' {
		sc.i++
		if digits() == 0 {
			return false
		}
		integer = false
	}
	if sc.i < len(sc.b) && (sc.b[sc.i] == 'e' || sc.b[sc.i] == 'E') {
		sc.i++
		if sc.i < len(sc.b) && (sc.b[sc.i] == '+' || sc.b[sc.i] == '-') {
			sc.i++
		}
		if digits() == 0 {
			return false
		}
		integer = false
	}
	if n == nil {
		return true
	}
	if !n.admits() {
		return false
	}
	if !integer || intDigits > 18 {
		return n.types&kNumber != 0 && !n.bounded && n.enums == nil
	}
	v, err := strconv.ParseInt(string(sc.b[start:sc.i]), 10, 64)
	return err == nil && n.Integer(v)
}

// Integer says n accepts the integer v, written in JSON as an integer of
// at most 18 digits: no fraction, no exponent.
func (n *Rule) Integer(v int64) bool {
	if n == nil {
		return true
	}
	if !n.admits() || n.types&kInteger == 0 || v < n.lo || v > n.hi {
		return false
	}
	for _, set := range n.enums {
		if !slices.Contains(set.ints, v) {
			return false
		}
	}
	return true
}

// admits says n asks nothing the fast path cannot answer of a value, and
// is not the false schema.
func (n *Rule) admits() bool { return n == nil || !n.unsure && !n.never }

// Number says n accepts the number written raw, as JSON spells it.
func (n *Rule) Number(raw []byte) bool {
	if len(raw) == 0 {
		return false
	}
	sc := scanner{b: raw}
	return sc.number(n) && sc.i == len(raw)
}

// String says n accepts the string s, decoded.
func (n *Rule) String(s []byte) bool {
	if n == nil {
		return true
	}
	if !n.admits() || n.types&kString == 0 {
		return false
	}
	if n.minLen >= 0 || n.maxLen >= 0 {
		l := utf8.RuneCount(s)
		if l < n.minLen || n.maxLen >= 0 && l > n.maxLen {
			return false
		}
	}
	if n.pattern != nil && !n.pattern.Match(s) {
		return false
	}
	for _, set := range n.enums {
		if !slices.Contains(set.strs, string(s)) {
			return false
		}
	}
	return true
}

// Literal says n accepts lit: true, false or null.
func (n *Rule) Literal(lit string) bool {
	if n == nil {
		return true
	}
	kind := kBool
	if lit == "null" {
		kind = kNull
	}
	if !n.admits() || n.types&kind == 0 {
		return false
	}
	for _, set := range n.enums {
		if kind == kNull && !set.null || kind == kBool && !set.bools[b2i(lit == "true")] {
			return false
		}
	}
	return true
}

// Object says n may accept an object: its members are asked of
// [Rule.Member], and the whole of [Rule.Complete].
func (n *Rule) Object() bool { return n == nil || n.admits() && n.types&kObject != 0 }

// Member returns the rule of an object's member called name.
func (n *Rule) Member(name []byte) *Rule {
	if n == nil {
		return nil
	}
	// A binary search: fewer instructions than a map's hash on the few
	// short names of most inputs, and as few on many.
	lo, hi := 0, len(n.props)
	for lo < hi {
		mid := int(uint(lo+hi) >> 1)
		if n.props[mid].name < string(name) {
			lo = mid + 1
		} else {
			hi = mid
		}
	}
	if lo < len(n.props) && n.props[lo].name == string(name) {
		return n.props[lo].rule
	}
	return n.additional
}

// Complete says n accepts an object whose members, each accepted, are
// those that has reports, each named once.
func (n *Rule) Complete(has func(name string) bool) bool {
	if n == nil {
		return true
	}
	for _, r := range n.required {
		if !has(r) {
			return false
		}
	}
	return n.enums == nil
}

// Array says n may accept an array: its items are asked of [Rule.Items],
// their count of [Rule.Count].
func (n *Rule) Array() bool { return n == nil || n.admits() && n.types&kArray != 0 }

// Items returns the rule of an array's items.
func (n *Rule) Items() *Rule {
	if n == nil {
		return nil
	}
	return n.items
}

// Count says n accepts an array of count items, each accepted.
func (n *Rule) Count(count int) bool {
	return n == nil || n.enums == nil && count >= n.minItems && (n.maxItems < 0 || count <= n.maxItems)
}
