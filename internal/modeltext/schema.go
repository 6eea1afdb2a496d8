package modeltext

import (
	"bytes"
	"encoding/json"
	"slices"
	"strings"
	"unicode"
)

// obj is a JSON object with its keys in the order written: a schema's
// properties are listed as the site declared them.
type obj struct {
	keys []string
	m    map[string]any
}

func (o *obj) has(k string) bool { _, ok := o.m[k]; return ok }

// decodeOrdered reads JSON into plain values, objects as *obj, numbers as
// [json.Number].
func decodeOrdered(raw []byte) (any, error) {
	d := json.NewDecoder(bytes.NewReader(raw))
	d.UseNumber()
	return readValue(d)
}

func readValue(d *json.Decoder) (any, error) {
	t, err := d.Token()
	if err != nil {
		return nil, err
	}
	switch t {
	case json.Delim('{'):
		o := &obj{m: map[string]any{}}
		for d.More() {
			kt, err := d.Token()
			if err != nil {
				return nil, err
			}
			k := kt.(string)
			v, err := readValue(d)
			if err != nil {
				return nil, err
			}
			if _, dup := o.m[k]; !dup {
				o.keys = append(o.keys, k)
			}
			o.m[k] = v
		}
		_, err := d.Token()
		return o, err
	case json.Delim('['):
		a := []any{}
		for d.More() {
			v, err := readValue(d)
			if err != nil {
				return nil, err
			}
			a = append(a, v)
		}
		_, err := d.Token()
		return a, err
	}
	return t, nil
}

// Signature writes an input schema as the parentheses of a call:
// "(sku: string 1-40 chars, quantity?: integer 1-99 =1)"; "()" for none.
// What the protocol fixes of the root (type object, additionalProperties
// false, $schema) is left out; any other keyword of the root follows.
func Signature(raw json.RawMessage) string {
	if len(bytes.TrimSpace(raw)) == 0 {
		return "()"
	}
	v, err := decodeOrdered(raw)
	if err != nil {
		return "(input: " + Quote(string(raw)) + ")"
	}
	o, ok := v.(*obj)
	if !ok || (o.has("type") && o.m["type"] != "object") {
		return "(input: " + schemaText(v) + ")"
	}
	skip := map[string]bool{"type": true, "$schema": true}
	if o.m["additionalProperties"] == false {
		skip["additionalProperties"] = true
	}
	return "(" + props(o) + ")" + rest(o, skip, "properties", "required")
}

// outputText writes an output schema as a type: "{id: string, total:
// integer}".
func outputText(raw json.RawMessage) string {
	v, err := decodeOrdered(raw)
	if err != nil {
		return Quote(string(raw))
	}
	if o, ok := v.(*obj); ok {
		delete(o.m, "$schema")
		o.keys = slices.DeleteFunc(o.keys, func(k string) bool { return k == "$schema" })
	}
	return schemaText(v)
}

// props writes an object schema's properties: "name: type", "name?:
// type" when not required.
func props(o *obj) string {
	p, _ := o.m["properties"].(*obj)
	if p == nil {
		return ""
	}
	var req []string
	if r, ok := o.m["required"].([]any); ok {
		for _, x := range r {
			if s, ok := x.(string); ok {
				req = append(req, s)
			}
		}
	}
	parts := make([]string, len(p.keys))
	for i, k := range p.keys {
		name := key(k)
		if !slices.Contains(req, k) {
			name += "?"
		}
		parts[i] = name + ": " + schemaText(p.m[k])
	}
	// A required name that is not a property is kept too.
	for _, r := range req {
		if !p.has(r) {
			parts = append(parts, key(r)+": any")
		}
	}
	return strings.Join(parts, ", ")
}

// schemaText writes a schema as a type with its bounds: "string 1-40
// chars", "integer 1-99 =1", "[]string 1-5 items", "{a: string, b?:
// integer}", "S|M|L", a description as /* ... */.
func schemaText(v any) string {
	o, ok := v.(*obj)
	if !ok {
		return value(plain(v)) // true, false
	}
	used := map[string]bool{}
	use := func(k string) (any, bool) {
		x, ok := o.m[k]
		if ok {
			used[k] = true
		}
		return x, ok
	}
	var out string
	types := typeNames(o)
	used["type"] = true
	switch {
	case o.has("const"):
		c, _ := use("const")
		out = strings.TrimSpace(strings.Join(types, "|") + " =" + value(plain(c)))
	case o.has("enum"):
		e, _ := use("enum")
		vs, _ := e.([]any)
		parts := make([]string, len(vs))
		for i, x := range vs {
			parts[i] = value(plain(x))
		}
		out = strings.TrimSpace(strings.Join(types, "|") + " " + strings.Join(parts, "|"))
		if len(vs) == 0 {
			out += " enum []"
		}
	case o.has("properties") || slices.Contains(types, "object") && !o.has("items"):
		use("properties")
		use("required")
		out = "{" + props(o) + "}"
		if ap, ok := o.m["additionalProperties"]; ok && ap == false {
			used["additionalProperties"] = true
		}
		types = slices.DeleteFunc(types, func(t string) bool { return t == "object" })
		if len(types) > 0 {
			out += "|" + strings.Join(types, "|")
		}
	case o.has("items") || slices.Contains(types, "array"):
		it, ok := use("items")
		elem := "any"
		if ok {
			elem = schemaText(it)
			if strings.ContainsAny(elem, " |") {
				elem = "(" + elem + ")"
			}
		}
		out = "[]" + elem
		types = slices.DeleteFunc(types, func(t string) bool { return t == "array" })
		if len(types) > 0 {
			out += "|" + strings.Join(types, "|")
		}
	case len(types) > 0:
		out = strings.Join(types, "|")
	}
	for _, comb := range []struct{ k, sep string }{{"anyOf", " | "}, {"oneOf", " | "}, {"allOf", " & "}} {
		x, ok := use(comb.k)
		if !ok {
			continue
		}
		xs, _ := x.([]any)
		parts := make([]string, len(xs))
		for i, s := range xs {
			parts[i] = schemaText(s)
		}
		alt := "(" + strings.Join(parts, comb.sep) + ")"
		if comb.k == "oneOf" {
			alt = "one of " + alt
		}
		out = strings.TrimSpace(out + " " + alt)
	}
	if r, ok := use("$ref"); ok {
		out = strings.TrimSpace(out + " ref " + value(plain(r)))
	}
	if out == "" {
		out = "any"
	}
	var tail []string
	if r := bounds(o, use, "minLength", "maxLength"); r != "" {
		tail = append(tail, r+" chars")
	}
	if r := bounds(o, use, "minimum", "maximum"); r != "" {
		tail = append(tail, r)
	}
	if x, ok := use("exclusiveMinimum"); ok {
		tail = append(tail, ">"+value(plain(x)))
	}
	if x, ok := use("exclusiveMaximum"); ok {
		tail = append(tail, "<"+value(plain(x)))
	}
	if x, ok := use("multipleOf"); ok {
		tail = append(tail, "step "+value(plain(x)))
	}
	if r := bounds(o, use, "minItems", "maxItems"); r != "" {
		tail = append(tail, r+" items")
	}
	if r := bounds(o, use, "minProperties", "maxProperties"); r != "" {
		tail = append(tail, r+" keys")
	}
	if x, ok := use("uniqueItems"); ok && x == true {
		tail = append(tail, "unique")
	}
	if x, ok := use("format"); ok {
		tail = append(tail, "format "+value(plain(x)))
	}
	if x, ok := use("pattern"); ok {
		s, _ := x.(string)
		p := str(s)
		if strings.ContainsFunc(p, unicode.IsSpace) || strings.Contains(p, `"`) {
			p = Quote(s) // one word, whatever it holds
		}
		tail = append(tail, "/"+p+"/")
	}
	if x, ok := use("default"); ok {
		tail = append(tail, "="+value(plain(x)))
	}
	if x, ok := use("examples"); ok {
		tail = append(tail, "e.g. "+value(plain(x)))
	}
	for _, flag := range []string{"deprecated", "readOnly", "writeOnly"} {
		if x, ok := use(flag); ok && x == true {
			tail = append(tail, flag)
		}
	}
	for _, k := range []string{"title", "description"} {
		if x, ok := use(k); ok {
			s, _ := x.(string)
			c := str(s)
			if strings.Contains(c, "*/") {
				c = Quote(s) // the comment's end, quoted
			}
			tail = append(tail, "/* "+c+" */")
		}
	}
	if len(tail) > 0 {
		out += " " + strings.Join(tail, " ")
	}
	return out + rest(o, used)
}

// typeNames is a schema's type: one name or a list.
func typeNames(o *obj) []string {
	switch t := o.m["type"].(type) {
	case string:
		return []string{Name(t)}
	case []any:
		var out []string
		for _, x := range t {
			if s, ok := x.(string); ok {
				out = append(out, Name(s))
			}
		}
		return out
	}
	return nil
}

// bounds writes a pair of bounds: "1-40", ">=1", "<=40"; "" when neither.
func bounds(o *obj, use func(string) (any, bool), lo, hi string) string {
	l, lok := use(lo)
	h, hok := use(hi)
	switch {
	case lok && hok:
		return value(plain(l)) + "-" + value(plain(h))
	case lok:
		return ">=" + value(plain(l))
	case hok:
		return "<=" + value(plain(h))
	}
	return ""
}

// rest writes the keywords the text has no word for, so that none is
// lost: " +{if: ..., then: ...}".
func rest(o *obj, used map[string]bool, also ...string) string {
	var parts []string
	for _, k := range o.keys {
		if used[k] || slices.Contains(also, k) {
			continue
		}
		parts = append(parts, key(k)+": "+value(plain(o.m[k])))
	}
	if len(parts) == 0 {
		return ""
	}
	return " +{" + strings.Join(parts, ", ") + "}"
}

// plain turns *obj back into maps, for [value].
func plain(v any) any {
	switch t := v.(type) {
	case *obj:
		m := make(map[string]any, len(t.m))
		for k, x := range t.m {
			m[k] = plain(x)
		}
		return m
	case []any:
		out := make([]any, len(t))
		for i, x := range t {
			out[i] = plain(x)
		}
		return out
	}
	return v
}
