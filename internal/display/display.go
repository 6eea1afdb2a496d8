// Package display writes a site's data for a person to read, in the
// CLI's and the bridge's words: an action's input schema in one line
// ([InputLine]: "sku: string (required, 1-40 chars), quantity: integer
// 1-99"), and JSON with the characters a person could not see escaped
// ([JSON]). The site's text in them has passed through [aal.Visible].
package display

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/affordances/affordances-go/aal"
)

// InputLine writes an action's input schema in one line: "sku: string
// (required, 1-40 chars), quantity: integer 1-99"; "none" when it takes
// nothing.
func InputLine(schema json.RawMessage) string {
	var s jsonSchema
	if len(bytes.TrimSpace(schema)) == 0 || json.Unmarshal(schema, &s) != nil {
		return "none"
	}
	names, props := orderedObject(s.Properties)
	if len(names) == 0 {
		if s.AdditionalProperties != nil && string(bytes.TrimSpace(s.AdditionalProperties)) == "false" {
			return "none"
		}
		if t := s.typeText(); t != "any" {
			return "any " + t
		}
		return "any"
	}
	parts := make([]string, len(names))
	for i, name := range names {
		var ps jsonSchema
		if json.Unmarshal(props[name], &ps) != nil {
			parts[i] = aal.Visible(name) + ": any"
			continue
		}
		parts[i] = aal.Visible(name) + ": " + ps.describe(slices.Contains(s.Required, name))
	}
	return strings.Join(parts, ", ")
}

// jsonSchema is what InputLine reads of a JSON Schema.
type jsonSchema struct {
	Type                 json.RawMessage  `json:"type"`
	Enum                 []any            `json:"enum"`
	Const                *json.RawMessage `json:"const"`
	Format               string           `json:"format"`
	Pattern              string           `json:"pattern"`
	MinLength            *json.Number     `json:"minLength"`
	MaxLength            *json.Number     `json:"maxLength"`
	Minimum              *json.Number     `json:"minimum"`
	Maximum              *json.Number     `json:"maximum"`
	ExclusiveMinimum     *json.Number     `json:"exclusiveMinimum"`
	ExclusiveMaximum     *json.Number     `json:"exclusiveMaximum"`
	MinItems             *json.Number     `json:"minItems"`
	MaxItems             *json.Number     `json:"maxItems"`
	Items                json.RawMessage  `json:"items"`
	Properties           json.RawMessage  `json:"properties"`
	AdditionalProperties json.RawMessage  `json:"additionalProperties"`
	Required             []string         `json:"required"`
	Default              *json.RawMessage `json:"default"`
}

// typeText is the schema's type: "string", "integer|null", an enum
// ("S"|"M"|"L"), "array of string", "object {a, b}", or "any".
func (s *jsonSchema) typeText() string {
	if s.Const != nil {
		return JSON(*s.Const)
	}
	if len(s.Enum) > 0 {
		vs := make([]string, len(s.Enum))
		for i, v := range s.Enum {
			vs[i] = JSON(v)
		}
		return strings.Join(vs, "|")
	}
	var types []string
	var one string
	if json.Unmarshal(s.Type, &one) == nil {
		types = []string{one}
	} else if json.Unmarshal(s.Type, &types) != nil || len(types) == 0 {
		return "any"
	}
	for i, t := range types {
		t = aal.Visible(t)
		switch t {
		case "array":
			var items jsonSchema
			if len(s.Items) > 0 && json.Unmarshal(s.Items, &items) == nil {
				if it := items.typeText(); it != "any" {
					t += " of " + it
				}
			}
		case "object":
			if names, _ := orderedObject(s.Properties); len(names) > 0 {
				for j, n := range names {
					names[j] = aal.Visible(n)
				}
				t += " {" + strings.Join(names, ", ") + "}"
			}
		}
		types[i] = t
	}
	return strings.Join(types, "|")
}

// describe writes a property: its type, a number's range after it, and
// the rest in parentheses: "string (required, 1-40 chars)", "integer 1-99".
func (s *jsonSchema) describe(required bool) string {
	out := s.typeText()
	if r := rangeText(s.Minimum, s.Maximum, s.ExclusiveMinimum, s.ExclusiveMaximum); r != "" {
		out += " " + r
	}
	var notes []string
	if required {
		notes = append(notes, "required")
	}
	if l := countText(s.MinLength, s.MaxLength, "chars"); l != "" {
		notes = append(notes, l)
	}
	if l := countText(s.MinItems, s.MaxItems, "items"); l != "" {
		notes = append(notes, l)
	}
	if s.Format != "" {
		notes = append(notes, "format "+aal.Visible(s.Format))
	}
	if s.Pattern != "" {
		notes = append(notes, "pattern "+aal.Visible(s.Pattern))
	}
	if s.Default != nil {
		notes = append(notes, "default "+JSON(*s.Default))
	}
	if len(notes) > 0 {
		out += " (" + strings.Join(notes, ", ") + ")"
	}
	return out
}

// rangeText writes a number's bounds: "1-99", ">= 1", "<= 99", "> 0".
func rangeText(minimum, maximum, exMin, exMax *json.Number) string {
	if minimum != nil && maximum != nil && exMin == nil && exMax == nil {
		return numText(*minimum) + "-" + numText(*maximum)
	}
	var parts []string
	switch {
	case exMin != nil:
		parts = append(parts, "> "+numText(*exMin))
	case minimum != nil:
		parts = append(parts, ">= "+numText(*minimum))
	}
	switch {
	case exMax != nil:
		parts = append(parts, "< "+numText(*exMax))
	case maximum != nil:
		parts = append(parts, "<= "+numText(*maximum))
	}
	return strings.Join(parts, " and ")
}

// countText writes a length's bounds: "1-40 chars", "exactly 4 chars", "at
// most 40 chars", "at least 3 chars".
func countText(lo, hi *json.Number, unit string) string {
	switch {
	case lo != nil && hi != nil && *lo == *hi:
		return "exactly " + numText(*lo) + " " + unit
	case lo != nil && hi != nil:
		return numText(*lo) + "-" + numText(*hi) + " " + unit
	case hi != nil:
		return "at most " + numText(*hi) + " " + unit
	case lo != nil && *lo != "0":
		return "at least " + numText(*lo) + " " + unit
	}
	return ""
}

func numText(n json.Number) string { return aal.Visible(n.String()) }

// orderedObject returns the keys of a JSON object in the order the site
// wrote them, with their values; nothing when raw is not an object.
func orderedObject(raw json.RawMessage) ([]string, map[string]json.RawMessage) {
	dec := json.NewDecoder(bytes.NewReader(raw))
	if t, err := dec.Token(); err != nil || t != json.Delim('{') {
		return nil, nil
	}
	var names []string
	values := map[string]json.RawMessage{}
	for dec.More() {
		t, err := dec.Token()
		if err != nil {
			return nil, nil
		}
		name, _ := t.(string)
		var v json.RawMessage
		if err := dec.Decode(&v); err != nil {
			return nil, nil
		}
		if _, dup := values[name]; !dup {
			names = append(names, name)
		}
		values[name] = v
	}
	return names, values
}

// JSON returns v as compact JSON with every character a person
// could not see escaped (JSON already escapes control characters; this
// escapes the invisible and direction characters [aal.Visible] reveals, so
// what a person reads is what the site sent, and the text is still JSON).
func JSON(v any) string {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return fmt.Sprintf("(%v)", err)
	}
	return EscapeHidden(strings.TrimSuffix(b.String(), "\n"))
}

// EscapeHidden escapes, in JSON text, the characters aal.Visible would.
// encoding/json has already escaped control characters and replaced
// invalid UTF-8, so only characters from U+007F up are left to check.
func EscapeHidden(s string) string {
	var b strings.Builder
	last := 0
	for i, r := range s {
		if r < 0x7f || aal.Visible(string(r)) == string(r) {
			continue
		}
		b.WriteString(s[last:i])
		last = i + utf8.RuneLen(r)
		if r > 0xffff {
			r -= 0x10000
			fmt.Fprintf(&b, `\u%04x\u%04x`, 0xd800+(r>>10), 0xdc00+(r&0x3ff))
		} else {
			fmt.Fprintf(&b, `\u%04x`, r)
		}
	}
	if last == 0 {
		return s
	}
	b.WriteString(s[last:])
	return b.String()
}
