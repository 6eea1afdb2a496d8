package aal_test

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"github.com/affordances/affordances-go/aal"
)

// FuzzValidate checks that Validate never panics, that every problem has a
// pointer ("" or starting with "/") and a message, that the schema and the
// code checks agree (docs/protocol.md decision 7), and that a document it calls
// clean decodes into its Go type and is still clean once encoded again.
func FuzzValidate(f *testing.F) {
	for _, s := range []string{
		examplesFragment,
		exampleManifest,
		`{"aal":"0.1","page":"/","affordances":[`,
		`{"aal":"0.1","page":"/","flow":{"id":"c","step":2.0,"of":1e1},"affordances":[{"id":"a","selector":"#a","action":"submit","label":"Pay\u200b","trust":"safe","cost":{"currency":"USD","amount":1e-400}}]}`,
		`{"aal":"0.1","site":{"name":"S","origin":"http://[::1]:8080"},"routes":[{"route":"/","fragment":"/index.json"},{"route":"/","fragment":"//x"}]}`,
		`{"flow":{"step":100.5,"of":-3.5}}`, // not whole, and out of range: the schema says type only
		`{"a":1,"a":2}`,
		"\xff",
		`{"aal":"0.1","page":"/","affordances":[{"id":"a","selector":"#a","action":"submit","label":"Pay\udc00","trust":"safe"}]}`,
		`[]`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, doc []byte) {
		kind, problems := aal.Validate(doc)
		for _, p := range problems {
			if p.Pointer != "" && !strings.HasPrefix(p.Pointer, "/") || p.Message == "" {
				t.Fatalf("problem %+v: want a pointer that is empty or starts with / and a message", p)
			}
		}
		switch kind {
		case "":
			if len(problems) == 0 {
				t.Fatal("no kind and no problem")
			}
			return
		case aal.KindFragment:
			if got := aal.ValidateFragment(doc); !slices.Equal(got, problems) {
				t.Fatalf("Validate finds %v, ValidateFragment %v", problems, got)
			}
		case aal.KindManifest:
			if got := aal.ValidateManifest(doc); !slices.Equal(got, problems) {
				t.Fatalf("Validate finds %v, ValidateManifest %v", problems, got)
			}
		default:
			t.Fatalf("kind %q", kind)
		}
		if schema, code, ok := aal.SchemaAndCode(kind, doc); ok && !slices.Equal(schema, code) {
			t.Fatalf("the schema finds %q, the code %q", schema, code)
		}
		if len(problems) > 0 {
			return
		}
		var v interface{ Validate() []aal.Problem }
		if kind == aal.KindFragment {
			v = &aal.Fragment{}
		} else {
			v = &aal.Manifest{}
		}
		if err := json.Unmarshal(doc, v); err != nil {
			t.Fatalf("clean, but does not decode into its Go type: %v", err)
		}
		if again := v.Validate(); again != nil {
			t.Fatalf("clean, but once decoded and encoded again: %v", again)
		}
	})
}
