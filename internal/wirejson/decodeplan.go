package wirejson

import (
	"encoding"
	"encoding/json"
	"reflect"
	"strconv"
	"unicode/utf8"
)

// An action's input is most often a flat struct of strings, numbers and
// booleans. For those, a DecodePlan fills the struct from the validated
// input as encoding/json would, without its reflection per call. It takes
// only the plain case: an object whose every name is a field's own name,
// each value of its field's JSON type and in range. On anything else (a
// name in another case, an unknown one, null, a number with a fraction
// for an int) it gives up, and encoding/json decodes the input
// (decodeplan_test.go compares the two).

// A DecodePlan holds the fields of a struct type it can fill; nil is no
// plan. It is never changed once made: one may decode in any number of
// goroutines.
type DecodePlan []decodedField

// A decodedField is a field of a DecodePlan: its JSON name and index.
type decodedField struct {
	name  string
	index int
	kind  reflect.Kind
}

var unmarshalerType = reflect.TypeFor[json.Unmarshaler]()
var textUnmarshalerType = reflect.TypeFor[encoding.TextUnmarshaler]()

// DecodePlanOf returns the plan of the struct type t, nil when it has none
// (any field not a string, bool or number, embedded, with the string
// option, an unmarshaler). It makes a new plan on each call.
func DecodePlanOf(t reflect.Type) DecodePlan {
	if t.Kind() != reflect.Struct || unmarshals(t) {
		return nil
	}
	plan := DecodePlan{}
	for i := range t.NumField() {
		f := t.Field(i)
		jf, skip, ok := jsonFieldOf(f)
		switch {
		case skip:
			continue
		case !ok || unmarshals(f.Type) || plan.field(jf.name) != nil:
			return nil
		}
		name := jf.name
		switch k := f.Type.Kind(); k {
		case reflect.String, reflect.Bool, reflect.Float32, reflect.Float64,
			reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
			reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
			plan = append(plan, decodedField{name: name, index: i, kind: k})
		default:
			return nil
		}
	}
	return plan
}

func unmarshals(t reflect.Type) bool {
	pt := reflect.PointerTo(t)
	return pt.Implements(unmarshalerType) || pt.Implements(textUnmarshalerType)
}

// Decode fills v, a settable struct of the plan's type, from input as
// json.Unmarshal would, and reports whether it could: it takes an object
// whose every name is a field's own, each value of its field's JSON type
// and in range. False leaves v partly filled; encoding/json decodes the
// input then, into a zero value.
func (p DecodePlan) Decode(input []byte, v reflect.Value) bool {
	s := callScan{b: input}
	s.space()
	if s.i == len(s.b) || s.b[s.i] != '{' {
		return false
	}
	s.i++
	s.space()
	if s.i < len(s.b) && s.b[s.i] == '}' {
		s.i++
		return s.end()
	}
	for {
		if s.i == len(s.b) || s.b[s.i] != '"' {
			return false
		}
		name, err := s.str()
		if err != nil {
			return false
		}
		f := p.field(string(name)) // inlined: the conversion does not allocate
		if f == nil {
			return false // another case, or unknown: encoding/json's rules
		}
		s.space()
		if s.i == len(s.b) || s.b[s.i] != ':' {
			return false
		}
		s.i++
		s.space()
		if !s.fill(v.Field(f.index), f.kind) {
			return false
		}
		s.space()
		if s.i == len(s.b) {
			return false
		}
		switch s.b[s.i] {
		case ',':
			s.i++
			s.space()
		case '}':
			s.i++
			return s.end()
		default:
			return false
		}
	}
}

// field returns the plan's field of the JSON name, or nil.
func (p DecodePlan) field(name string) *decodedField {
	for i := range p {
		if p[i].name == name {
			return &p[i]
		}
	}
	return nil
}

// end reports whether nothing but space follows.
func (s *callScan) end() bool {
	s.space()
	return s.i == len(s.b)
}

// fill sets f, of kind k, from the value at s.i when it is of f's JSON type
// and fits it.
func (s *callScan) fill(f reflect.Value, k reflect.Kind) bool {
	if s.i == len(s.b) {
		return false
	}
	switch k {
	case reflect.String:
		if s.b[s.i] != '"' {
			return false
		}
		v, err := s.str()
		if err != nil || !utf8.Valid(v) { // encoding/json would write U+FFFD
			return false
		}
		f.SetString(string(v))
		return true
	case reflect.Bool:
		for _, lit := range [...]string{"true", "false"} {
			if len(s.b)-s.i >= len(lit) && string(s.b[s.i:s.i+len(lit)]) == lit {
				s.i += len(lit)
				f.SetBool(lit == "true")
				return true
			}
		}
		return false
	}
	start := s.i
	if c := s.b[s.i]; c != '-' && (c < '0' || c > '9') || !s.number() {
		return false
	}
	n := string(s.b[start:s.i])
	switch k {
	case reflect.Float32, reflect.Float64:
		x, err := strconv.ParseFloat(n, f.Type().Bits())
		if err != nil || f.OverflowFloat(x) {
			return false
		}
		f.SetFloat(x)
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		x, err := strconv.ParseUint(n, 10, 64)
		if err != nil || f.OverflowUint(x) {
			return false
		}
		f.SetUint(x)
	default:
		x, err := strconv.ParseInt(n, 10, 64)
		if err != nil || f.OverflowInt(x) {
			return false
		}
		f.SetInt(x)
	}
	return true
}
