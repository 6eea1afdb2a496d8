package wirejson

import (
	"encoding"
	"encoding/json"
	"reflect"
	"strconv"
	"unicode/utf8"

	"github.com/affordances/affordances-go/internal/schema"
)

// An action's input is most often a struct of strings, numbers and
// booleans, and lists of them or of such structs. For those, a DecodePlan
// fills the struct from the validated input as encoding/json would,
// without its reflection per call. It takes only the plain case: an
// object whose every name is a field's own name, each value of its field's
// JSON type and in range, a list an array. On anything else (a name in
// another case, an unknown one, null, a number with a fraction for an int)
// it gives up, and encoding/json decodes the input (decodeplan_test.go
// compares the two).
//
// A plan may also check the input as it decodes it, against the fast path
// of its schema ([DecodePlan.DecodeChecked]): then a call's input is read
// once, for its validity and its value together.

// A DecodePlan holds the fields of a struct type it can fill; nil is no
// plan. It is never changed once made: one may decode in any number of
// goroutines.
type DecodePlan []decodedField

// A decodedField is a field of a DecodePlan: its JSON name and index, and
// how its value is filled.
type decodedField struct {
	name  string
	index int
	typ   *decodedType
}

// A decodedType is how a plan fills a value of one Go type: a string,
// boolean or number by its kind; a slice element by element (elem); a
// struct by its own plan (fields).
type decodedType struct {
	kind   reflect.Kind
	t      reflect.Type
	elem   *decodedType
	fields DecodePlan
}

var unmarshalerType = reflect.TypeFor[json.Unmarshaler]()
var textUnmarshalerType = reflect.TypeFor[encoding.TextUnmarshaler]()

// maxPlanDepth bounds how deep a plan's structs and slices nest: a type
// that holds itself (a tree) has no plan.
const maxPlanDepth = 8

// DecodePlanOf returns the plan of the struct type t, nil when it has none
// (a field not a string, bool, number, slice or struct of those; embedded;
// with the string option; an unmarshaler; a []byte, which JSON spells in
// base64; a type that holds itself). It makes a new plan on each call.
func DecodePlanOf(t reflect.Type) DecodePlan {
	dt := decodedTypeOf(t, 0)
	if dt == nil || dt.kind != reflect.Struct {
		return nil
	}
	return dt.fields
}

// decodedTypeOf returns how a plan fills a t, nil when it cannot, at depth
// depth of the input's type.
func decodedTypeOf(t reflect.Type, depth int) *decodedType {
	if depth > maxPlanDepth || unmarshals(t) {
		return nil
	}
	dt := &decodedType{kind: t.Kind(), t: t}
	switch dt.kind {
	case reflect.String, reflect.Bool, reflect.Float32, reflect.Float64,
		reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return dt
	case reflect.Slice:
		if t.Elem().Kind() == reflect.Uint8 {
			return nil // base64 in JSON
		}
		if dt.elem = decodedTypeOf(t.Elem(), depth+1); dt.elem == nil {
			return nil
		}
		return dt
	case reflect.Struct:
		dt.fields = DecodePlan{}
		for i := range t.NumField() {
			f := t.Field(i)
			jf, skip, ok := jsonFieldOf(f)
			switch {
			case skip:
				continue
			case !ok || dt.fields.field([]byte(jf.name)) >= 0:
				return nil
			}
			ft := decodedTypeOf(f.Type, depth+1)
			if ft == nil {
				return nil
			}
			dt.fields = append(dt.fields, decodedField{name: jf.name, index: i, typ: ft})
		}
		return dt
	}
	return nil
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
	return p.decode(input, v, nil, false)
}

// DecodeChecked is Decode of an input not validated yet: it asks r, the
// fast path of the input's schema ([schema.Schema.Rule]), of each value
// as it reads it, and reports true only when r accepts the whole input,
// each name once. False says nothing of the input's validity: validate
// it, and decode it, the usual way.
func (p DecodePlan) DecodeChecked(input []byte, v reflect.Value, r *schema.Rule) bool {
	return p.decode(input, v, r, true)
}

// decode is Decode, or checked, DecodeChecked. Invalid UTF-8, which
// encoding/json would read as U+FFFD, is left to it: the input is looked
// at once for it, not each string.
func (p DecodePlan) decode(input []byte, v reflect.Value, r *schema.Rule, checked bool) bool {
	if !utf8.Valid(input) {
		return false
	}
	s := callScan{b: input, checked: checked}
	s.space()
	return s.decodeObject(p, v, r) && s.end()
}

// decodeObject fills v, a struct of p's type, from the object at s.i, as
// encoding/json does: a name twice sets its field twice, the second time
// over the first (a nested struct's fields one by one). Checked, it asks r
// of the object and each member's rule of its value, and refuses a name
// twice, as the fast path does.
func (s *callScan) decodeObject(p DecodePlan, v reflect.Value, r *schema.Rule) bool {
	if s.i == len(s.b) || s.b[s.i] != '{' || s.checked && (!r.Object() || len(p) > 64) {
		return false
	}
	var seen uint64 // checked: the plan's fields read, by their place in p
	complete := func() bool {
		return !s.checked || r.Complete(func(name string) bool {
			i := p.field([]byte(name))
			return i >= 0 && seen&(1<<i) != 0
		})
	}
	s.i++
	s.space()
	if s.i < len(s.b) && s.b[s.i] == '}' {
		s.i++
		return complete()
	}
	for {
		if s.i == len(s.b) || s.b[s.i] != '"' {
			return false
		}
		name, err := s.str()
		if err != nil {
			return false
		}
		i := p.field(name)
		if i < 0 || s.checked && seen&(1<<i) != 0 {
			return false // another case, unknown, or checked and twice: the usual way
		}
		seen |= 1 << i
		s.space()
		if s.i == len(s.b) || s.b[s.i] != ':' {
			return false
		}
		s.i++
		s.space()
		if !s.fill(v.Field(p[i].index), p[i].typ, r.Member(name)) {
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
			return complete()
		default:
			return false
		}
	}
}

// decodeArray sets f, a slice of dt's type, to the array at s.i, as
// encoding/json does: a new slice of its elements, an empty one for [].
// Checked, it asks r of the array, and r's items' rule of each item.
func (s *callScan) decodeArray(f reflect.Value, dt *decodedType, r *schema.Rule) bool {
	if s.i == len(s.b) || s.b[s.i] != '[' || s.checked && !r.Array() {
		return false
	}
	s.i++
	s.space()
	list := reflect.MakeSlice(dt.t, 0, 4)
	if s.i < len(s.b) && s.b[s.i] == ']' {
		s.i++
		f.Set(list)
		return !s.checked || r.Count(0)
	}
	zero := reflect.Zero(dt.t.Elem())
	for {
		list = reflect.Append(list, zero)
		if !s.fill(list.Index(list.Len()-1), dt.elem, r.Items()) {
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
		case ']':
			s.i++
			f.Set(list)
			return !s.checked || r.Count(list.Len())
		default:
			return false
		}
	}
}

// field returns the place in p of the field of the JSON name, or -1.
func (p DecodePlan) field(name []byte) int {
	for i := range p {
		if p[i].name == string(name) {
			return i
		}
	}
	return -1
}

// end reports whether nothing but space follows.
func (s *callScan) end() bool {
	s.space()
	return s.i == len(s.b)
}

// fill sets f, of dt's type, from the value at s.i when it is of f's JSON
// type and fits it, and, checked, r accepts it.
func (s *callScan) fill(f reflect.Value, dt *decodedType, r *schema.Rule) bool {
	if s.i == len(s.b) {
		return false
	}
	k := dt.kind
	switch k {
	case reflect.Struct:
		return s.decodeObject(dt.fields, f, r)
	case reflect.Slice:
		return s.decodeArray(f, dt, r)
	case reflect.String:
		if s.b[s.i] != '"' {
			return false
		}
		v, err := s.str()
		if err != nil || s.checked && !r.String(v) {
			return false
		}
		f.SetString(string(v))
		return true
	case reflect.Bool:
		for _, lit := range [...]string{"true", "false"} {
			if len(s.b)-s.i >= len(lit) && string(s.b[s.i:s.i+len(lit)]) == lit {
				s.i += len(lit)
				f.SetBool(lit == "true")
				return !s.checked || r.Literal(lit)
			}
		}
		return false
	}
	start := s.i
	if c := s.b[s.i]; c != '-' && (c < '0' || c > '9') || !s.number() {
		return false
	}
	raw := s.b[start:s.i]
	n := string(raw)
	// An integer of at most 18 digits is checked by its value, parsed
	// once; any other number by what it says.
	digits := len(raw)
	if raw[0] == '-' {
		digits--
	}
	small := digits <= 18
	switch k {
	case reflect.Float32, reflect.Float64:
		x, err := strconv.ParseFloat(n, f.Type().Bits())
		if err != nil || f.OverflowFloat(x) || s.checked && !r.Number(raw) {
			return false
		}
		f.SetFloat(x)
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		x, err := strconv.ParseUint(n, 10, 64)
		if err != nil || f.OverflowUint(x) || s.checked && !(small && r.Integer(int64(x)) || !small && r.Number(raw)) {
			return false
		}
		f.SetUint(x)
	default:
		x, err := strconv.ParseInt(n, 10, 64)
		if err != nil || f.OverflowInt(x) || s.checked && !(small && r.Integer(x) || !small && r.Number(raw)) {
			return false
		}
		f.SetInt(x)
	}
	return true
}
