package affordances

import (
	"bytes"
	"encoding/json"
	"math"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/affordances/affordances-go/internal/jsonptr"
)

// A formSchema is the part of an input schema that says how to read a
// form's values: the JSON type of each property, arrays' items, objects'
// properties (fields "address.city"); and what a form field is, for an
// agent in the browser ([PageAction.Field]).
type formSchema struct {
	Type        any                    `json:"type"`
	Properties  map[string]*formSchema `json:"properties"`
	Items       *formSchema            `json:"items"`
	Required    []string               `json:"required"`
	Description string                 `json:"description"`
}

// describe returns the description of the form field name ("address.city"
// for a nested property), "" when the schema gives none.
func (fs *formSchema) describe(name string) string {
	for fs != nil {
		first, rest, nested := strings.Cut(name, ".")
		fs = fs.Properties[first]
		if !nested {
			break
		}
		name = rest
	}
	if fs == nil {
		return ""
	}
	return fs.Description
}

// UnmarshalJSON reads a schema; a boolean schema (true, false) says
// nothing of types.
func (fs *formSchema) UnmarshalJSON(b []byte) error {
	if s := string(bytes.TrimSpace(b)); s == "true" || s == "false" {
		*fs = formSchema{}
		return nil
	}
	type plain formSchema
	return json.Unmarshal(b, (*plain)(fs))
}

// newFormSchema reads the form decoding of an input schema; a schema it
// cannot read decodes every field as a string, and the schema then says
// what is wrong with that.
func newFormSchema(input json.RawMessage) *formSchema {
	var fs formSchema
	if json.Unmarshal(input, &fs) != nil {
		return &formSchema{}
	}
	return &fs
}

// kind is the schema's JSON type: the first of its types that is not
// "null", "" when it names none.
func (fs *formSchema) kind() string {
	if fs == nil {
		return ""
	}
	switch t := fs.Type.(type) {
	case string:
		return t
	case []any:
		for _, v := range t {
			if s, _ := v.(string); s != "" && s != "null" {
				return s
			}
		}
	}
	return ""
}

// decode turns a form's values into the JSON input the schema describes:
// integers, numbers and booleans parsed, an absent checkbox false, repeated
// fields an array, an empty field absent unless it is a required string.
// Fields the schema does not name (the action's own, a token) are left
// out. A value that cannot be read as its type is an issue at its JSON
// Pointer, and is left out of the input, which holds the rest, so the
// schema can say in the same answer what else is wrong.
func (fs *formSchema) decode(values url.Values) (json.RawMessage, []issue) {
	var issues []issue
	obj := fs.object(values, "", "", &issues)
	b, err := json.Marshal(obj)
	if err != nil {
		return nil, []issue{{"", phrase("could not be read")}}
	}
	return b, issues
}

func (fs *formSchema) object(values url.Values, prefix, ptr string, issues *[]issue) map[string]any {
	out := map[string]any{}
	for _, name := range slices.Sorted(func(yield func(string) bool) {
		for k := range fs.Properties {
			if !yield(k) {
				return
			}
		}
	}) {
		p, field, path := fs.Properties[name], prefix+name, jsonptr.Append(ptr, name)
		vs := values[field]
		switch p.kind() {
		case "object":
			if sub := p.object(values, field+".", path, issues); len(sub) > 0 || slices.Contains(fs.Required, name) {
				out[name] = sub
			}
		case "array":
			if len(vs) == 0 {
				continue
			}
			items := make([]any, 0, len(vs))
			for i, v := range vs {
				if x, ok := scalar(p.Items.kind(), v, path+"/"+strconv.Itoa(i), issues); ok {
					items = append(items, x)
				}
			}
			out[name] = items
		default:
			switch {
			case len(vs) > 1 && p.kind() == "boolean":
				// A hidden "false" before its checkbox: the last one says.
				if x, ok := scalar("boolean", vs[len(vs)-1], path, issues); ok {
					out[name] = x
				}
			case len(vs) > 1:
				*issues = append(*issues, issue{path, phrase("was sent %d times; send one value", len(vs))})
			case len(vs) == 0 && p.kind() == "boolean":
				out[name] = false // an unchecked checkbox sends nothing
			case len(vs) == 0, vs[0] == "" && (p.kind() != "string" || !slices.Contains(fs.Required, name)):
				// absent: the schema says whether it may be
			default:
				if x, ok := scalar(p.kind(), vs[0], path, issues); ok {
					out[name] = x
				}
			}
		}
	}
	return out
}

// scalar reads one form value as the JSON type kind.
func scalar(kind, v, path string, issues *[]issue) (any, bool) {
	fail := func(t text) (any, bool) {
		*issues = append(*issues, issue{path, t})
		return nil, false
	}
	if !utf8.ValidString(v) {
		return fail(phrase("is not valid UTF-8"))
	}
	switch kind {
	case "integer":
		n, err := strconv.ParseInt(strings.TrimSpace(v), 10, 64)
		if err != nil {
			return fail(phrase("must be a whole number"))
		}
		return n, true
	case "number":
		f, err := strconv.ParseFloat(strings.TrimSpace(v), 64)
		if err != nil || math.IsInf(f, 0) || math.IsNaN(f) {
			return fail(phrase("must be a number"))
		}
		return f, true
	case "boolean":
		switch strings.ToLower(strings.TrimSpace(v)) {
		case "on", "true", "1", "yes":
			return true, true
		case "off", "false", "0", "no", "":
			return false, true
		}
		return fail(phrase("must be true or false"))
	}
	return v, true
}
