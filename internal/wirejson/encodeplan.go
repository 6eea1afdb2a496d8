package wirejson

import (
	"encoding"
	"encoding/json"
	"reflect"
	"slices"
	"strconv"
	"sync"
)

// An entity's value is most often plain data: structs of strings, numbers
// and booleans, slices and maps of them. For those, AppendValue writes what
// encoding/json writes by a plan made once per type: the fields to write,
// their escaped names, how to write each. A type with anything whose
// encoding has rules of its own (a Marshaler or TextMarshaler, json.Number, floats,
// []byte, interfaces, embedded fields, the string and omitzero options,
// names encoding/json would not take as they are, a type that contains
// itself) has no plan and is encoded by encoding/json (encodeplan_test.go
// compares the two).

// A planned writes v, of the type it was planned for, to dst.
type planned func(dst []byte, v reflect.Value) []byte

// plans holds the plan of each type met, or a nil planned when it has none.
var plans sync.Map // reflect.Type → planned

// planOf returns the plan of t, or nil when encoding/json must encode it.
func planOf(t reflect.Type) planned {
	if p, ok := plans.Load(t); ok {
		return p.(planned)
	}
	p := makePlan(t, map[reflect.Type]bool{})
	plans.Store(t, p)
	return p
}

var (
	marshalerType     = reflect.TypeFor[json.Marshaler]()
	textMarshalerType = reflect.TypeFor[encoding.TextMarshaler]()
	numberType        = reflect.TypeFor[json.Number]() // a string written as it is
)

// makePlan returns the plan of t, nil when it has none; outer holds the
// types being planned around t.
func makePlan(t reflect.Type, outer map[reflect.Type]bool) planned {
	if outer[t] || t == numberType || t.Implements(marshalerType) || t.Implements(textMarshalerType) {
		return nil
	}
	if pt := reflect.PointerTo(t); pt.Implements(marshalerType) || pt.Implements(textMarshalerType) {
		return nil
	}
	outer[t] = true
	defer delete(outer, t)
	switch t.Kind() {
	case reflect.String:
		return func(dst []byte, v reflect.Value) []byte { return AppendString(dst, v.String()) }
	case reflect.Bool:
		return func(dst []byte, v reflect.Value) []byte { return strconv.AppendBool(dst, v.Bool()) }
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return func(dst []byte, v reflect.Value) []byte { return strconv.AppendInt(dst, v.Int(), 10) }
	case reflect.Uint, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return func(dst []byte, v reflect.Value) []byte { return strconv.AppendUint(dst, v.Uint(), 10) }
	case reflect.Slice, reflect.Array:
		if t.Elem().Kind() == reflect.Uint8 {
			return nil // base64, or a Marshaler's
		}
		elem := makePlan(t.Elem(), outer)
		if elem == nil {
			return nil
		}
		write := func(dst []byte, v reflect.Value) []byte { return appendElems(dst, v, elem) }
		if t.Kind() == reflect.Array {
			return write
		}
		return orNull(write)
	case reflect.Pointer:
		elem := makePlan(t.Elem(), outer)
		if elem == nil {
			return nil
		}
		return orNull(func(dst []byte, v reflect.Value) []byte { return elem(dst, v.Elem()) })
	case reflect.Map:
		if t.Key().Kind() != reflect.String || t.Key().Implements(textMarshalerType) {
			return nil
		}
		elem := makePlan(t.Elem(), outer)
		if elem == nil {
			return nil
		}
		return orNull(func(dst []byte, v reflect.Value) []byte {
			keys := v.MapKeys()
			slices.SortFunc(keys, func(a, b reflect.Value) int {
				if a.String() < b.String() {
					return -1
				}
				return 1 // keys are distinct
			})
			dst = append(dst, '{')
			for i, k := range keys {
				if i > 0 {
					dst = append(dst, ',')
				}
				dst = AppendString(dst, k.String())
				dst = append(dst, ':')
				dst = elem(dst, v.MapIndex(k))
			}
			return append(dst, '}')
		})
	case reflect.Struct:
		return structPlan(t, outer)
	}
	return nil // floats, interfaces and what encoding/json refuses
}

// orNull is write for a slice, map or pointer that is not nil; a nil one
// is null.
func orNull(write planned) planned {
	return func(dst []byte, v reflect.Value) []byte {
		if v.IsNil() {
			return append(dst, "null"...)
		}
		return write(dst, v)
	}
}

// appendElems writes the elements of a slice or array.
func appendElems(dst []byte, v reflect.Value, elem planned) []byte {
	dst = append(dst, '[')
	for i := range v.Len() {
		if i > 0 {
			dst = append(dst, ',')
		}
		dst = elem(dst, v.Index(i))
	}
	return append(dst, ']')
}

// A plannedField is a field of a struct's plan.
type plannedField struct {
	index     int
	key       []byte // a comma, its name quoted, and a colon
	omitEmpty bool
	// kind is String, Bool or Int for a field of one of those kinds, which
	// the struct's plan writes itself, without a call of write; else
	// Invalid.
	kind  reflect.Kind
	write planned
}

// structPlan returns the plan of a struct type, nil when it has none.
func structPlan(t reflect.Type, outer map[reflect.Type]bool) planned {
	var fields []plannedField
	names := map[string]bool{}
	for i := range t.NumField() {
		f := t.Field(i)
		jf, skip, ok := jsonFieldOf(f)
		switch {
		case skip:
			continue
		case !ok || jf.omitZero || names[jf.name]:
			return nil
		}
		name, omitEmpty := jf.name, jf.omitEmpty
		names[name] = true
		write := makePlan(f.Type, outer)
		if write == nil {
			return nil
		}
		pf := plannedField{index: i, key: append(AppendString([]byte{','}, name), ':'), omitEmpty: omitEmpty, write: write}
		switch k := f.Type.Kind(); k {
		case reflect.String, reflect.Bool:
			pf.kind = k
		case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
			pf.kind = reflect.Int
		}
		fields = append(fields, pf)
	}
	return func(dst []byte, v reflect.Value) []byte {
		dst = append(dst, '{')
		skip := 1 // the comma before the first key
		for i := range fields {
			f := &fields[i]
			fv := v.Field(f.index)
			switch f.kind {
			case reflect.String:
				s := fv.String()
				if f.omitEmpty && s == "" {
					continue
				}
				dst = AppendString(append(dst, f.key[skip:]...), s)
			case reflect.Bool:
				b := fv.Bool()
				if f.omitEmpty && !b {
					continue
				}
				dst = strconv.AppendBool(append(dst, f.key[skip:]...), b)
			case reflect.Int:
				n := fv.Int()
				if f.omitEmpty && n == 0 {
					continue
				}
				dst = strconv.AppendInt(append(dst, f.key[skip:]...), n, 10)
			default:
				if f.omitEmpty && emptyValue(fv) {
					continue
				}
				dst = f.write(append(dst, f.key[skip:]...), fv)
			}
			skip = 0
		}
		return append(dst, '}')
	}
}

// A jsonField is how encoding/json names a struct field, and the options
// of its tag a plan knows.
type jsonField struct {
	name                string
	omitEmpty, omitZero bool
}

// jsonFieldOf returns how encoding/json takes the struct field f: skip for
// a field it leaves out (unexported, or tagged "-"); ok false for one a
// plan does not take (embedded, with the string option or one it does not
// know, or a name encoding/json would not take as it is).
func jsonFieldOf(f reflect.StructField) (jf jsonField, skip, ok bool) {
	if f.Anonymous {
		return jf, false, false // embedded: encoding/json's rules of promotion
	}
	tag := f.Tag.Get("json")
	if !f.IsExported() || tag == "-" {
		return jf, true, true
	}
	name, opts, _ := cutComma(tag)
	for opts != "" {
		var opt string
		switch opt, opts, _ = cutComma(opts); opt {
		case "omitempty":
			jf.omitEmpty = true
		case "omitzero":
			jf.omitZero = true
		case "":
		default:
			return jf, false, false // string, or what a plan does not know
		}
	}
	if name == "" {
		name = f.Name
	}
	jf.name = name
	return jf, false, plainName(name)
}

// cutComma is strings.Cut(s, ",").
func cutComma(s string) (before, after string, found bool) {
	for i := 0; i < len(s); i++ {
		if s[i] == ',' {
			return s[:i], s[i+1:], true
		}
	}
	return s, "", false
}

// plainName reports whether name holds only ASCII letters, digits, _ and
// -: a key encoding/json takes as it is.
func plainName(name string) bool {
	for i := 0; i < len(name); i++ {
		c := name[i]
		if !('a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '_' || c == '-') {
			return false
		}
	}
	return name != ""
}

// emptyValue is what omitempty leaves out, for the kinds a plan has.
func emptyValue(v reflect.Value) bool {
	switch v.Kind() {
	case reflect.String, reflect.Slice, reflect.Map, reflect.Array:
		return v.Len() == 0
	case reflect.Bool:
		return !v.Bool()
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return v.Int() == 0
	case reflect.Uint, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return v.Uint() == 0
	case reflect.Pointer:
		return v.IsNil()
	}
	return false
}
