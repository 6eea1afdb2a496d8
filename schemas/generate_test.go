package schemas_test

import (
	"bytes"
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"github.com/affordances/affordances-go/internal/schemagen"
	"github.com/affordances/affordances-go/schemas"
)

// TestFilesMatchGoTypes fails when a checked-in schema differs from what the
// Go wire types generate: the fix is always to regenerate, never to edit.
func TestFilesMatchGoTypes(t *testing.T) {
	files, err := schemagen.Generate()
	if err != nil {
		t.Fatalf("generating the schemas: %v", err)
	}
	generated := map[string]bool{}
	for _, f := range files {
		generated[f.Name] = true
		got := schemas.File(f.Name)
		switch {
		case got == nil:
			t.Errorf("schemas/%s is missing; run `go generate ./schemas`", f.Name)
		case !bytes.Equal(got, f.Data):
			line, gotLine, wantLine := firstDifference(got, f.Data)
			t.Errorf("schemas/%s differs from what the Go types generate, first on line %d: got %q, want %q; run `go generate ./schemas`",
				f.Name, line, gotLine, wantLine)
		}
	}
	for _, name := range schemas.Names() {
		if !generated[name] {
			t.Errorf("schemas/%s is generated from no Go type; run `go generate ./schemas` to remove it", name)
		}
	}
}

// firstDifference returns the first line (counted from 1) on which a and b
// differ, and that line of each.
func firstDifference(a, b []byte) (int, string, string) {
	al, bl := strings.Split(string(a), "\n"), strings.Split(string(b), "\n")
	for i := 0; ; i++ {
		var x, y string
		if i < len(al) {
			x = al[i]
		}
		if i < len(bl) {
			y = bl[i]
		}
		if x != y || i >= len(al) || i >= len(bl) {
			return i + 1, x, y
		}
	}
}

// TestNames checks that every name constant has a file and that Names lists
// exactly those, sorted.
func TestNames(t *testing.T) {
	want := []string{schemas.ActionDescriptor, schemas.ActionSummary, schemas.Call, schemas.Delta, schemas.Error, schemas.Graph, schemas.SiteIndex}
	slices.Sort(want)
	if got := schemas.Names(); !slices.Equal(got, want) {
		t.Errorf("Names() = %q, want %q", got, want)
	}
	if got := schemas.File("nope.json"); got != nil {
		t.Errorf("File(%q) = %q, want nil", "nope.json", got)
	}
	if schemas.Base != schemagen.Base {
		t.Errorf("schemas.Base = %q, want schemagen.Base %q", schemas.Base, schemagen.Base)
	}
	var ids []string
	for id, doc := range schemas.All() {
		ids = append(ids, id)
		if len(doc) == 0 {
			t.Errorf("All() yields %s with no bytes", id)
		}
	}
	if len(ids) != len(want) {
		t.Errorf("All() yields %d schemas, want %d", len(ids), len(want))
	}
}

// TestFileHeaders checks what every file promises besides its shape: the
// 2020-12 dialect, a stable $id, a title, a description, and objects left
// open (docs/protocol.md §27: clients must ignore fields they do not
// recognise).
func TestFileHeaders(t *testing.T) {
	for _, name := range schemas.Names() {
		t.Run(name, func(t *testing.T) {
			var s map[string]any
			if err := json.Unmarshal(schemas.File(name), &s); err != nil {
				t.Fatalf("not JSON: %v", err)
			}
			for key, want := range map[string]string{
				"$schema": "https://json-schema.org/draft/2020-12/schema",
				"$id":     schemas.ID(name),
			} {
				if got := s[key]; got != want {
					t.Errorf("%s = %v, want %q", key, got, want)
				}
			}
			for _, key := range []string{"title", "description"} {
				if got, _ := s[key].(string); got == "" {
					t.Errorf("%s = %v, want a non-empty string", key, s[key])
				}
			}
			if closed := bytes.Contains(schemas.File(name), []byte(`"additionalProperties": false`)); closed {
				t.Errorf("has additionalProperties: false, want open objects (docs/protocol.md §27 (Versioning))")
			}
		})
	}
}
