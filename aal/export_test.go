package aal

import (
	"encoding/json"
	"sort"
)

// SchemaAndCode returns what the schema and the code checks each find in
// doc, as "pointer rule" lines, sorted; the lines of rules only code can
// check are left out. ok is false when doc is not JSON.
func SchemaAndCode(kind string, doc []byte) (schema, code []string, ok bool) {
	d, err := decode(doc)
	if err != nil {
		return nil, nil, false
	}
	v := d.v
	s := mustSchemas()
	c := &checker{}
	var sp []problem
	switch kind {
	case KindFragment:
		c.fragment(v)
		sp = schemaProblems(s.fragment, v)
	case KindManifest:
		c.manifest(v)
		sp = schemaProblems(s.manifest, v)
	}
	lines := func(ps []problem) []string {
		seen := map[string]bool{}
		var out []string
		for _, p := range ps {
			switch p.rule {
			case ruleJSON, ruleUTF8, ruleDuplicate, ruleSize, ruleUnique, ruleFlow, ruleKind:
				continue
			}
			l := p.Pointer + " " + p.rule
			if !seen[l] {
				seen[l] = true
				out = append(out, l)
			}
		}
		sort.Strings(out)
		return out
	}
	return lines(sp), lines(c.out), true
}

// Refused reports whether docs/protocol.md decision 7 refuses r in a label.
var Refused = refused

var MixedWord = mixedWord

// Tame is tame, for tests.
func Tame(n string) string { return string(tame(json.Number(n))) }
