// Package typeschema infers the JSON Schema of a Go type, the input and
// output schemas of the root package's typed actions, with
// github.com/google/jsonschema-go (see internal/schema for why a second
// library validates).
package typeschema

import (
	"encoding/json"
	"fmt"
	"reflect"
	"strconv"
	"strings"

	"github.com/google/jsonschema-go/jsonschema"
)

// For infers the schema of t: encoding/json names, required unless omitempty
// or omitzero, no additional properties on structs, the jsonschema tag as
// description, and bounds from the affordances tag.
func For(t reflect.Type) (json.RawMessage, error) {
	s, err := jsonschema.ForType(t, &jsonschema.ForOptions{TypeSchemas: map[reflect.Type]*jsonschema.Schema{
		reflect.TypeFor[json.RawMessage](): {},
	}})
	if err != nil {
		return nil, err
	}
	if err := applyBounds(t, s); err != nil {
		return nil, err
	}
	return json.Marshal(s)
}

// applyBounds walks t and s together and applies affordances tags; an error
// names the Go field by its path from t (Order.Lines.Quantity).
func applyBounds(t reflect.Type, s *jsonschema.Schema) error {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	return walkBounds(t, s, t.Name())
}

func walkBounds(t reflect.Type, s *jsonschema.Schema, path string) error {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if s == nil {
		return nil
	}
	switch t.Kind() {
	case reflect.Slice, reflect.Array:
		return walkBounds(t.Elem(), s.Items, path)
	case reflect.Map:
		return walkBounds(t.Elem(), s.AdditionalProperties, path)
	case reflect.Struct:
		for _, f := range reflect.VisibleFields(t) {
			if !f.IsExported() || f.Anonymous {
				continue
			}
			name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
			if name == "-" {
				continue
			}
			if name == "" {
				name = f.Name
			}
			ps := s.Properties[name]
			if ps == nil {
				continue
			}
			field := f.Name
			if path != "" {
				field = path + "." + f.Name
			}
			if tag, ok := f.Tag.Lookup("affordances"); ok {
				if err := bounds(ps, f.Type, tag); err != nil {
					//lint:ignore ST1005 "Go" is a proper noun, and the field's name follows
					return fmt.Errorf("Go field %s: %w", field, err)
				}
			}
			if err := walkBounds(f.Type, ps, field); err != nil {
				return err
			}
		}
	}
	return nil
}

// splitEscaped splits s at each sep not preceded by a backslash; a
// backslash before sep is dropped, any other backslash is kept (a regex's
// \d stays \d). A backslash ending s is an unbalanced escape.
func splitEscaped(s string, sep byte) ([]string, error) {
	var parts []string
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		switch {
		case s[i] == '\\' && i+1 == len(s):
			return nil, fmt.Errorf("unbalanced escape: %q ends in a lone \\", s)
		case s[i] == '\\' && s[i+1] == sep:
			b.WriteByte(sep)
			i++
		case s[i] == sep:
			parts = append(parts, b.String())
			b.Reset()
		default:
			b.WriteByte(s[i])
		}
	}
	return append(parts, b.String()), nil
}

// enumValue parses v as a value of the JSON type of Go type t.
func enumValue(t reflect.Type, v string) (any, error) {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	switch t.Kind() {
	case reflect.String:
		return v, nil
	case reflect.Bool:
		return strconv.ParseBool(v)
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return strconv.ParseInt(v, 10, t.Bits())
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		return strconv.ParseUint(v, 10, t.Bits())
	case reflect.Float32, reflect.Float64:
		return strconv.ParseFloat(v, 64)
	}
	return nil, fmt.Errorf("enum on a field of type %s, want a string, number or bool", t)
}

// bounds applies tag to s, the schema of a field of Go type t.
func bounds(s *jsonschema.Schema, t reflect.Type, tag string) error {
	kvs, err := splitEscaped(tag, ',')
	if err != nil {
		return fmt.Errorf("affordances tag %q: %w", tag, err)
	}
	for _, kv := range kvs {
		k, v, ok := strings.Cut(kv, "=")
		if !ok {
			return fmt.Errorf("affordances tag %q: %q: want key=value", tag, kv)
		}
		var err error
		num := func(dst **float64) {
			var f float64
			f, err = strconv.ParseFloat(v, 64)
			*dst = &f
		}
		integer := func(dst **int) {
			var n int
			n, err = strconv.Atoi(v)
			*dst = &n
		}
		switch k {
		case "minimum":
			num(&s.Minimum)
		case "maximum":
			num(&s.Maximum)
		case "exclusiveMinimum":
			num(&s.ExclusiveMinimum)
		case "exclusiveMaximum":
			num(&s.ExclusiveMaximum)
		case "minLength":
			integer(&s.MinLength)
		case "maxLength":
			integer(&s.MaxLength)
		case "minItems":
			integer(&s.MinItems)
		case "maxItems":
			integer(&s.MaxItems)
		case "pattern":
			s.Pattern = v
		case "format":
			s.Format = v
		case "enum":
			var vals []string
			if vals, err = splitEscaped(v, '|'); err != nil {
				break
			}
			for _, e := range vals {
				var ev any
				if ev, err = enumValue(t, e); err != nil {
					break
				}
				s.Enum = append(s.Enum, ev)
			}
		default:
			return fmt.Errorf("affordances tag %q: unknown key %q", kv, k)
		}
		if err != nil {
			return fmt.Errorf("affordances tag %q: %w", kv, err)
		}
	}
	return nil
}
