package aal

import (
	"bytes"
	_ "embed"
	"errors"
	"fmt"
	"strings"
	"sync"

	"github.com/affordances/affordances-go/internal/jsonptr"
	"github.com/santhosh-tekuri/jsonschema/v6"
	"github.com/santhosh-tekuri/jsonschema/v6/kind"
	"golang.org/x/text/language"
	"golang.org/x/text/message"
)

// Schema is the JSON Schema (2020-12) of AAL 0.1 documents,
// schema/aal-0.1.json: at its top a fragment or a manifest, and in $defs
// the fragment, manifest, affordance, flow and cost. It enforces every cap,
// closed set and pattern of CLARIFICATIONS 7 that a schema can carry; the
// size of a fragment, the uniqueness of ids and of >= step are checked in
// code ([ValidateFragment]). Do not modify it; it is shared.
//
//go:embed schema/aal-0.1.json
var Schema []byte

// SchemaID is the $id of [Schema].
const SchemaID = "https://affordances.dev/schemas/aal-0.1.json"

// compiled holds the schemas the validators use.
type compiled struct {
	fragment, manifest, affordance *jsonschema.Schema
}

// schemas compiles [Schema] once; the compiled schemas are safe for
// concurrent use.
var schemas = sync.OnceValues(func() (*compiled, error) {
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(Schema))
	if err != nil {
		return nil, err
	}
	c := jsonschema.NewCompiler()
	c.DefaultDraft(jsonschema.Draft2020)
	if err := c.AddResource(SchemaID, doc); err != nil {
		return nil, err
	}
	var out compiled
	for _, s := range []struct {
		def string
		dst **jsonschema.Schema
	}{{"fragment", &out.fragment}, {"manifest", &out.manifest}, {"affordance", &out.affordance}} {
		if *s.dst, err = c.Compile(SchemaID + "#/$defs/" + s.def); err != nil {
			return nil, err
		}
	}
	return &out, nil
})

// mustSchemas returns the compiled schemas; the embedded schema is part of
// the package, so failing to compile it is a bug in the package.
func mustSchemas() *compiled {
	s, err := schemas()
	if err != nil {
		panic("aal: the embedded schema does not compile: " + err.Error())
	}
	return s
}

var printer = message.NewPrinter(language.English)

// schemaProblems validates v against s and returns a problem for every
// leaf error, each with the rule that code checks name the same way.
func schemaProblems(s *jsonschema.Schema, v tree) []problem {
	err := s.Validate(v)
	if err == nil {
		return nil
	}
	var ve *jsonschema.ValidationError
	if !errors.As(err, &ve) {
		return []problem{{Problem{"", "the schema could not check the document: " + err.Error()}, "schema"}}
	}
	var out []problem
	var walk func(e *jsonschema.ValidationError)
	walk = func(e *jsonschema.ValidationError) {
		if len(e.Causes) > 0 {
			for _, c := range e.Causes {
				walk(c)
			}
			return
		}
		ptr := jsonptr.Format(e.InstanceLocation)
		msg := e.ErrorKind.LocalizedString(printer)
		switch k := e.ErrorKind.(type) {
		case *kind.Required:
			for _, name := range k.Missing {
				out = append(out, problem{Problem{ptr, fmt.Sprintf("missing property %q", name)}, ruleRequired + name})
			}
			return
		case *kind.AdditionalProperties:
			for _, name := range k.Properties {
				out = append(out, problem{Problem{jsonptr.Append(ptr, name), fmt.Sprintf("property %s is not allowed", quote(name))}, ruleUnknown})
			}
			return
		}
		out = append(out, problem{Problem{ptr, msg}, schemaRule(e.ErrorKind)})
	}
	walk(ve)
	return out
}

// schemaRule names the rule a schema error breaks, as code checks name it.
func schemaRule(k jsonschema.ErrorKind) string {
	switch k.(type) {
	case *kind.Type:
		return ruleType
	case *kind.MinLength, *kind.MaxLength:
		return ruleLength
	case *kind.Pattern:
		return rulePattern
	case *kind.Enum, *kind.Const:
		return ruleEnum
	case *kind.Minimum, *kind.Maximum, *kind.ExclusiveMinimum, *kind.ExclusiveMaximum:
		return ruleRange
	case *kind.MinItems, *kind.MaxItems, *kind.MinProperties, *kind.MaxProperties:
		return ruleCount
	case *kind.Not: // the schema's one not: a label word mixing scripts
		return ruleScript
	}
	return "schema:" + strings.Join(k.KeywordPath(), "/")
}
