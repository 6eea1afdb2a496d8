package aal

import (
	_ "embed"
	"fmt"
	"slices"
	"sync"

	"github.com/affordances/affordances-go/internal/jsonptr"
	"github.com/affordances/affordances-go/internal/schema"
)

// Schema returns the JSON Schema (2020-12) of AAL 0.1 documents,
// schema/aal-0.1.json: at its top a fragment or a manifest, and in $defs
// the fragment, manifest, affordance, flow and cost. It enforces every cap,
// closed set and pattern of docs/protocol.md decision 7 that a schema can carry; the
// size of a fragment, the uniqueness of ids and of >= step are checked in
// code ([ValidateFragment]). The bytes are a copy: changing them changes
// nothing the package validates.
func Schema() []byte { return slices.Clone(schemaDoc) }

//go:embed schema/aal-0.1.json
var schemaDoc []byte

// SchemaID is the $id of [Schema].
const SchemaID = "https://affordances.dev/schemas/aal-0.1.json"

// compiled holds the schemas the validators use.
type compiled struct {
	fragment, manifest, affordance *schema.Schema
}

// schemas compiles [Schema] once; the compiled schemas are safe for
// concurrent use.
var schemas = sync.OnceValues(func() (*compiled, error) {
	ss, err := schema.CompileDefs(SchemaID, schemaDoc, "fragment", "manifest", "affordance")
	if err != nil {
		return nil, err
	}
	return &compiled{fragment: ss[0], manifest: ss[1], affordance: ss[2]}, nil
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

// schemaProblems validates v against s and returns a problem for every
// leaf error, each with the rule that code checks name the same way.
func schemaProblems(s *schema.Schema, v tree) []problem {
	var out []problem
	for _, is := range s.ValidateValue(v) {
		switch is.Keyword {
		case "":
			out = append(out, problem{Problem{"", "the schema could not check the document: " + is.Message}, "schema"})
		case "required": // at the missing property's pointer
			parent, name := splitLast(is.Path)
			out = append(out, problem{Problem{parent, fmt.Sprintf("missing property %q", name)}, ruleRequired + name})
		case "additionalProperties":
			_, name := splitLast(is.Path)
			out = append(out, problem{Problem{is.Path, fmt.Sprintf("property %s is not allowed", quote(name))}, ruleUnknown})
		default:
			out = append(out, problem{Problem{is.Path, is.Message}, schemaRule(is.Keyword)})
		}
	}
	return out
}

// splitLast splits a pointer into its parent's pointer and its last token.
func splitLast(ptr string) (parent, name string) {
	toks, _ := jsonptr.Split(ptr) // the validator's pointers are well formed
	if len(toks) == 0 {
		return "", ""
	}
	return jsonptr.Format(toks[:len(toks)-1]), toks[len(toks)-1]
}

// schemaRule names the rule a schema keyword breaks, as code checks name it.
func schemaRule(keyword string) string {
	switch keyword {
	case "type":
		return ruleType
	case "minLength", "maxLength":
		return ruleLength
	case "pattern":
		return rulePattern
	case "enum", "const":
		return ruleEnum
	case "minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum":
		return ruleRange
	case "minItems", "maxItems", "minProperties", "maxProperties":
		return ruleCount
	case "not": // the schema's one not: a label word mixing scripts
		return ruleScript
	}
	return "schema:" + keyword
}
