// Package webmcp holds what a browser's WebMCP asks of a page's tools
// (docs/webmcp.md): Chrome's guidance on their lengths, the subset of JSON
// Schema a browser may validate their arguments with, and the response
// headers without which registerTool refuses every tool.
package webmcp

import (
	"bytes"
	"encoding/json"
	"maps"
	"slices"
	"strings"
	"unicode"
)

// Chrome's guidance for a WebMCP tool, in characters: its description, a
// parameter's, and its result (webmcp.js holds the result's own copy).
const (
	MaxDescription      = 500
	MaxParamDescription = 150
	MaxResult           = 1500
)

// Cut returns s when it has at most n characters, else its start, ended
// at a space where one is near, and more, in n characters all told.
func Cut(s string, n int, more string) string {
	rs := []rune(s)
	if len(rs) <= n {
		return s
	}
	keep := max(n-len([]rune(more)), 0)
	end := keep
	for i := keep; i > keep*3/4; i-- {
		if unicode.IsSpace(rs[i]) {
			end = i
			break
		}
	}
	return strings.TrimRightFunc(string(rs[:end]), unicode.IsSpace) + more
}

// Schema returns input, an action's input schema, said within the
// subset of JSON Schema a browser may validate a tool's arguments with
// (docs/webmcp.md): type, properties, required, enum, bounds, lengths,
// pattern, items, additionalProperties false, default and description,
// each description cut to [MaxParamDescription]. A local $ref is put in
// its place (once per path, so a recursive one stops), const is an enum
// of one, and an anyOf or oneOf of consts an enum; any other keyword
// goes, and the tool's schema then says less than the action's, which
// the site still validates every call against. input itself when it is
// within the subset already; {"type":"object"} when it is no JSON.
func Schema(input json.RawMessage) json.RawMessage {
	d := json.NewDecoder(bytes.NewReader(input))
	d.UseNumber()
	var v any
	if d.Decode(&v) != nil {
		return json.RawMessage(`{"type":"object"}`)
	}
	root, _ := v.(map[string]any)
	out, changed := subset(v, root, nil)
	if !changed {
		return input
	}
	b, err := json.Marshal(out)
	if err != nil {
		return json.RawMessage(`{"type":"object"}`)
	}
	return b
}

// subset returns the schema s within the subset, refs resolved in root
// (those in within, the refs being resolved, are not again), and whether
// it differs from s.
func subset(s any, root map[string]any, within []string) (any, bool) {
	m, ok := s.(map[string]any)
	if !ok {
		return map[string]any{}, true // a boolean schema, or no schema
	}
	out := make(map[string]any, len(m))
	changed := false
	if ref, ok := m["$ref"].(string); ok {
		changed = true
		if def := resolve(root, ref); def != nil && !slices.Contains(within, ref) {
			in, _ := subset(def, root, append(within, ref))
			maps.Copy(out, in.(map[string]any))
		}
	}
	for k, x := range m {
		switch k {
		case "type", "required", "enum", "default", "pattern":
			out[k] = x
		case "minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum", "minLength", "maxLength", "minItems", "maxItems":
			if _, ok := x.(json.Number); ok { // not draft 4's boolean exclusiveMinimum
				out[k] = x
			} else {
				changed = true
			}
		case "description":
			d, _ := x.(string)
			out[k] = Cut(d, MaxParamDescription, "…")
			changed = changed || out[k] != x
		case "properties":
			ps, ok := x.(map[string]any)
			if !ok {
				changed = true
				continue
			}
			o := make(map[string]any, len(ps))
			for name, p := range ps {
				var c bool
				o[name], c = subset(p, root, within)
				changed = changed || c
			}
			out[k] = o
		case "items":
			var c bool
			out[k], c = subset(x, root, within)
			changed = changed || c
		case "additionalProperties":
			if x == false {
				out[k] = false
			} else {
				changed = true
			}
		case "const":
			changed = true
			if _, ok := m["enum"]; !ok {
				out["enum"] = []any{x}
			}
		case "anyOf", "oneOf":
			changed = true
			if e := consts(x); e != nil {
				if _, ok := m["enum"]; !ok {
					out["enum"] = e
				}
			}
		default: // $ref (above), format, $defs, allOf, not, title…
			changed = true
		}
	}
	return out, changed
}

// resolve returns the schema a local $ref names (#/$defs/name,
// #/definitions/name), nil for any other.
func resolve(root map[string]any, ref string) map[string]any {
	for _, defs := range []string{"#/$defs/", "#/definitions/"} {
		if name, ok := strings.CutPrefix(ref, defs); ok && !strings.ContainsAny(name, "/~%") {
			ds, _ := root[strings.TrimPrefix(strings.TrimSuffix(defs, "/"), "#/")].(map[string]any)
			def, _ := ds[name].(map[string]any)
			return def
		}
	}
	return nil
}

// consts returns the values of an anyOf or a oneOf whose every branch is
// a const, nil for any other.
func consts(x any) []any {
	bs, _ := x.([]any)
	var e []any
	for _, b := range bs {
		m, _ := b.(map[string]any)
		c, ok := m["const"]
		if !ok {
			return nil
		}
		e = append(e, c)
	}
	return e
}

// Outside returns where schema says what the subset does not, as JSON
// Pointers with the keyword ("/properties/when/format"), and where a
// description is longer than [MaxParamDescription]; nil when it is within
// ([Schema] returns such a schema).
func Outside(schema json.RawMessage) []string {
	var v any
	if json.Unmarshal(schema, &v) != nil {
		return []string{": no JSON"}
	}
	var out []string
	var walk func(at string, s any)
	walk = func(at string, s any) {
		m, ok := s.(map[string]any)
		if !ok {
			out = append(out, at+": a schema that is no object")
			return
		}
		for _, k := range slices.Sorted(maps.Keys(m)) {
			switch x := m[k]; k {
			case "type", "required", "enum", "default", "pattern", "minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum",
				"minLength", "maxLength", "minItems", "maxItems":
			case "description":
				if d, _ := x.(string); len([]rune(d)) > MaxParamDescription {
					out = append(out, at+"/description: longer than 150 characters")
				}
			case "additionalProperties":
				if x != false {
					out = append(out, at+"/additionalProperties: not false")
				}
			case "items":
				walk(at+"/items", x)
			case "properties":
				ps, _ := x.(map[string]any)
				for _, name := range slices.Sorted(maps.Keys(ps)) {
					walk(at+"/properties/"+strings.NewReplacer("~", "~0", "/", "~1").Replace(name), ps[name])
				}
			default:
				out = append(out, at+"/"+k)
			}
		}
	}
	walk("", v)
	return out
}
