// Package schema compiles JSON Schemas (2020-12 unless they say
// otherwise) once and validates JSON against them, each failure an issue
// at its JSON Pointer. It is the one validator of the root package and
// package aal.
//
// Two JSON Schema libraries, each for what the other lacks: validation is
// github.com/santhosh-tekuri/jsonschema/v6's, which reports every leaf
// failure with its place and keyword and asserts formats, but infers
// nothing from Go types; inferring a schema from a Go type is
// github.com/google/jsonschema-go's (internal/typeschema, and
// internal/schemagen for package schemas' files), whose validator stops at
// the first failure with no instance location and asserts no "format". It
// is also the MCP Go SDK's, so mcpbridge keeps it in the module graph
// anyway. Inference lives in its own package so that package aal, which
// only validates, links one library.
package schema

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math/big"
	"slices"
	"strings"

	"github.com/affordances/affordances-go/internal/jsonptr"
	sjs "github.com/santhosh-tekuri/jsonschema/v6"
	"github.com/santhosh-tekuri/jsonschema/v6/kind"
	"golang.org/x/text/language"
	"golang.org/x/text/message"
)

// A Schema is a compiled JSON Schema. It is safe for concurrent use.
type Schema struct {
	s    *sjs.Schema
	fast *Rule // the fast path of Validate (see fast.go), nil when beyond it
}

// Compile compiles a JSON Schema given as JSON, as 2020-12 when it names no
// $schema. When the schema keeps to the keywords of the fast path (see
// fast.go), [Schema.Validate] first reads the document with it, and runs
// the library only when it cannot say the document is valid: its answers
// are the library's.
func Compile(doc json.RawMessage) (*Schema, error) {
	ss, err := compile("input.json", doc, "")
	if err != nil {
		return nil, err
	}
	v, _ := Decode(doc) // compile decoded it already
	ss[0].fast = compileFast(v)
	return ss[0], nil
}

// CompileDefs compiles doc, a schema whose $id is id, and returns the
// schemas of the named members of its $defs, in order.
func CompileDefs(id string, doc []byte, defs ...string) ([]*Schema, error) {
	fragments := make([]string, len(defs))
	for i, d := range defs {
		fragments[i] = "#/$defs/" + jsonptr.Escape(d)
	}
	return compile(id, doc, fragments...)
}

// compile compiles doc as the resource id and returns the schema at each
// of fragments ("" is the whole document). A "format" the schema publishes
// is a rule, not a hint.
func compile(id string, doc []byte, fragments ...string) ([]*Schema, error) {
	v, err := sjs.UnmarshalJSON(bytes.NewReader(doc))
	if err != nil {
		return nil, fmt.Errorf("not valid JSON: %w", err)
	}
	c := sjs.NewCompiler()
	c.DefaultDraft(sjs.Draft2020)
	c.AssertFormat()
	if err := c.AddResource(id, v); err != nil {
		return nil, err
	}
	out := make([]*Schema, len(fragments))
	for i, f := range fragments {
		s, err := c.Compile(id + f)
		if err != nil {
			return nil, err
		}
		out[i] = &Schema{s: s}
	}
	return out, nil
}

// An Issue is one place where a document fails its schema.
type Issue struct {
	Path    string // a JSON Pointer into the document
	Message string // what is wrong there, in the validator's English, for a developer
	// Keyword is the keyword that failed: "type", "pattern", "required" (at
	// the missing property's pointer), "additionalProperties" (at the
	// property's), "not", "false" for a false schema; "" when the
	// validator could not run.
	Keyword string
	// Person says what is wrong in words for a person who fills in a
	// form: "must be at least 3 characters" where Message says
	// "minLength: got 1, want 3".
	Person Phrase
}

// A Phrase is English text for a person, as a format and its arguments,
// so that it can be said in another language too: its Format is a key of
// the root package's catalogue (i18n.go).
type Phrase struct {
	Format string
	Args   []any
}

// phrase returns the Phrase of format and args.
func phrase(format string, args ...any) Phrase { return Phrase{Format: format, Args: args} }

// String returns the phrase in English.
func (p Phrase) String() string { return fmt.Sprintf(p.Format, p.Args...) }

var printer = message.NewPrinter(language.English)

// Validate checks doc against s and returns every leaf problem, or an error
// when doc is not JSON.
func (s *Schema) Validate(doc json.RawMessage) ([]Issue, error) {
	if s.fast != nil && s.fast.valid(doc) {
		return nil, nil
	}
	v, err := sjs.UnmarshalJSON(bytes.NewReader(doc))
	if err != nil {
		return nil, err
	}
	return s.ValidateValue(v), nil
}

// Rule returns the fast path of s, for a decoder that checks each value
// as it reads it ([Rule]); when s is beyond the fast path, a rule sure of
// no value, so that nothing is taken for valid by mistake.
func (s *Schema) Rule() *Rule {
	if s.fast == nil {
		return unsure
	}
	return s.fast
}

// ValidateValue checks a value decoded by [Decode] against s.
func (s *Schema) ValidateValue(v any) []Issue {
	err := s.s.Validate(v)
	if err == nil {
		return nil
	}
	var ve *sjs.ValidationError
	if !errors.As(err, &ve) {
		return []Issue{{Path: "", Message: err.Error(), Person: phrase("could not be checked")}}
	}
	var issues []Issue
	leaves(ve, &issues)
	return issues
}

// Decode decodes JSON the way the validator wants it (numbers as
// json.Number).
func Decode(doc []byte) (any, error) { return sjs.UnmarshalJSON(bytes.NewReader(doc)) }

// leaves lists the leaf problems of e. A missing or an unknown property is
// an issue at the property's own pointer, where a form shows it beside its
// field; each says what is wrong in words a person reads beside the field.
func leaves(e *sjs.ValidationError, out *[]Issue) {
	if len(e.Causes) > 0 {
		for _, c := range e.Causes {
			leaves(c, out)
		}
		return
	}
	at := func(name string) string { return jsonptr.Format(append(slices.Clip(e.InstanceLocation), name)) }
	switch k := e.ErrorKind.(type) {
	case *kind.Required:
		for _, name := range k.Missing {
			*out = append(*out, Issue{Path: at(name), Message: "is required", Keyword: "required", Person: phrase("is required")})
		}
	case *kind.AdditionalProperties:
		for _, name := range k.Properties {
			*out = append(*out, Issue{Path: at(name), Message: "is not allowed", Keyword: "additionalProperties", Person: phrase("is not allowed")})
		}
	case *kind.Format:
		p := formatPhrase(k.Want)
		*out = append(*out, Issue{Path: jsonptr.Format(e.InstanceLocation), Message: p.String(), Keyword: "format", Person: p})
	default:
		*out = append(*out, Issue{Path: jsonptr.Format(e.InstanceLocation), Message: k.LocalizedString(printer), Keyword: keyword(k), Person: person(k)})
	}
}

// keyword names the keyword of a leaf error.
func keyword(k sjs.ErrorKind) string {
	switch k.(type) {
	case *kind.Not:
		return "not"
	case *kind.FalseSchema:
		return "false"
	}
	return strings.Join(k.KeywordPath(), "/")
}

// formatPhrase says what a value of format must be.
func formatPhrase(format string) Phrase {
	switch format {
	case "date":
		return phrase("must be a real date, as YYYY-MM-DD")
	case "date-time":
		return phrase("must be a date and time, as in RFC 3339 (2026-12-01T09:30:00Z)")
	case "time":
		return phrase("must be a time of day, as in RFC 3339 (09:30:00Z)")
	case "email":
		return phrase("must be an email address")
	case "uri":
		return phrase("must be an absolute URI")
	case "uuid":
		return phrase("must be a UUID")
	}
	return phrase("must be a valid %s", format)
}

// person says what a leaf error of the other keywords means for a person.
func person(k sjs.ErrorKind) Phrase {
	switch k := k.(type) {
	case *kind.Type:
		want := k.Want
		if len(want) > 1 { // a type that may also be null says what the value must be
			want = slices.DeleteFunc(slices.Clone(want), func(t string) bool { return t == "null" })
		}
		if len(want) == 1 {
			return typePhrase(want[0])
		}
		return phrase("is not of a type this field takes")
	case *kind.Enum:
		if len(k.Want) == 1 {
			return phrase("must be %s", shown(k.Want[0]))
		}
		want := make([]string, len(k.Want))
		for i, w := range k.Want {
			want[i] = shown(w)
		}
		return phrase("must be one of %s", strings.Join(want, ", "))
	case *kind.Const:
		return phrase("must be %s", shown(k.Want))
	case *kind.MinLength:
		if k.Want == 1 {
			return phrase("must not be empty")
		}
		return phrase("must be at least %d characters", k.Want)
	case *kind.MaxLength:
		if k.Want == 1 {
			return phrase("must be at most 1 character")
		}
		return phrase("must be at most %d characters", k.Want)
	case *kind.Pattern:
		return phrase("must match the pattern %s", k.Want)
	case *kind.Minimum:
		return phrase("must be at least %v", number(k.Want))
	case *kind.Maximum:
		return phrase("must be at most %v", number(k.Want))
	case *kind.ExclusiveMinimum:
		return phrase("must be more than %v", number(k.Want))
	case *kind.ExclusiveMaximum:
		return phrase("must be less than %v", number(k.Want))
	case *kind.MultipleOf:
		return phrase("must be a multiple of %v", number(k.Want))
	case *kind.MinItems:
		if k.Want == 1 {
			return phrase("must not be empty")
		}
		return phrase("must have at least %d items", k.Want)
	case *kind.MaxItems:
		if k.Want == 1 {
			return phrase("must have at most 1 item")
		}
		return phrase("must have at most %d items", k.Want)
	case *kind.AdditionalItems:
		return phrase("has more items than it may")
	case *kind.UniqueItems:
		return phrase("must not hold the same item twice (items %d and %d)", k.Duplicates[0], k.Duplicates[1])
	case *kind.MinProperties:
		return phrase("must have at least %d fields", k.Want)
	case *kind.MaxProperties:
		return phrase("must have at most %d fields", k.Want)
	case *kind.Dependency:
		return phrase("needs %s when it has %s", strings.Join(k.Missing, ", "), k.Prop)
	case *kind.DependentRequired:
		return phrase("needs %s when it has %s", strings.Join(k.Missing, ", "), k.Prop)
	case *kind.PropertyNames:
		return phrase("may not have a field named %s", k.Property)
	case *kind.Contains, *kind.MinContains, *kind.MaxContains:
		return phrase("does not hold the items it must")
	case *kind.FalseSchema:
		return phrase("is not allowed")
	case *kind.ContentEncoding:
		return phrase("must be encoded as %s", k.Want)
	case *kind.ContentMediaType:
		return phrase("must be of the media type %s", k.Want)
	}
	return phrase("is not a value this field takes")
}

// typePhrase says what a value of the JSON type t must be.
func typePhrase(t string) Phrase {
	switch t {
	case "string":
		return phrase("must be text")
	case "integer":
		return phrase("must be a whole number")
	case "number":
		return phrase("must be a number")
	case "boolean":
		return phrase("must be true or false")
	case "object":
		return phrase("must be a set of named fields")
	case "array":
		return phrase("must be a list")
	case "null":
		return phrase("must be null")
	}
	return phrase("is not of a type this field takes")
}

// shown returns v, a value of the document, as JSON.
func shown(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Sprint(v)
	}
	return string(b)
}

// number returns r as a float64, which %v writes as 0.5 or 10.
func number(r *big.Rat) float64 {
	f, _ := r.Float64()
	return f
}
