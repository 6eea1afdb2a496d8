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
	fast *node // the fast path of Validate (see fast.go), nil when beyond it
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
	Message string // what is wrong there, in English
	// Keyword is the keyword that failed: "type", "pattern", "required" (at
	// the missing property's pointer), "additionalProperties" (at the
	// property's), "not", "false" for a false schema; "" when the
	// validator could not run.
	Keyword string
}

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

// ValidateValue checks a value decoded by [Decode] against s.
func (s *Schema) ValidateValue(v any) []Issue {
	err := s.s.Validate(v)
	if err == nil {
		return nil
	}
	var ve *sjs.ValidationError
	if !errors.As(err, &ve) {
		return []Issue{{Path: "", Message: err.Error()}}
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
// field; a value that breaks its format says what it must be, in words a
// person reads beside the field.
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
			*out = append(*out, Issue{Path: at(name), Message: "is required", Keyword: "required"})
		}
	case *kind.AdditionalProperties:
		for _, name := range k.Properties {
			*out = append(*out, Issue{Path: at(name), Message: "is not allowed", Keyword: "additionalProperties"})
		}
	case *kind.Format:
		*out = append(*out, Issue{Path: jsonptr.Format(e.InstanceLocation), Message: formatMessage(k.Want), Keyword: "format"})
	default:
		*out = append(*out, Issue{Path: jsonptr.Format(e.InstanceLocation), Message: k.LocalizedString(printer), Keyword: keyword(k)})
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

// formatMessage says what a value of format must be.
func formatMessage(format string) string {
	switch format {
	case "date":
		return "must be a real date, as YYYY-MM-DD"
	case "date-time":
		return "must be a date and time, as in RFC 3339 (2026-12-01T09:30:00Z)"
	case "time":
		return "must be a time of day, as in RFC 3339 (09:30:00Z)"
	case "email":
		return "must be an email address"
	case "uri":
		return "must be an absolute URI"
	case "uuid":
		return "must be a UUID"
	}
	return "must be a valid " + format
}
