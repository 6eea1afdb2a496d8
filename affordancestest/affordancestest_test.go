package affordancestest_test

import (
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"

	"github.com/affordances/affordances-go/affordancestest"
	"github.com/affordances/affordances-go/schemas"
)

// recorder is a testing.TB that keeps what Errorf reports instead of failing
// the real test.
type recorder struct {
	testing.TB
	errs []string
}

func (r *recorder) Helper() {}

func (r *recorder) Errorf(format string, args ...any) {
	r.errs = append(r.errs, fmt.Sprintf(format, args...))
}

// EXAMPLES.md documents, trimmed.
const (
	graph = `{"v":"0","page":"/products/canvas-tote","route":"/products/[slug]",
 "entities":{"cart":{"count":0,"items":[],"total":0}},
 "actions":[{"name":"addToCart","description":"Add this product to the cart","input":{"type":"object"},"expose":"session","available":true,"effects":["cart"]}],
 "nav":[{"to":"/cart","label":"Cart"}]}`
	delta = `{"ok":true,"changed":{"cart":{"count":2}},"message":"Added 2 Canvas Tote to your cart."}`
	index = `{"v":"0","routes":[{"route":"/products/[slug]","actions":[{"name":"addToCart","description":"Add","input":{},"expose":"session"}]}],"auth":["cookie","bearer"]}`
	call  = `{"action":"addToCart","input":{"slug":"canvas-tote","quantity":2}}`
)

func TestChecks(t *testing.T) {
	tests := []struct {
		name  string
		check func(testing.TB, []byte)
		body  string
		want  []string // what the failure must mention; nil: no failure
	}{
		{"graph from EXAMPLES (docs/protocol.md §7 (Graph))", affordancestest.CheckGraph, graph, nil},
		{"graph with an unknown field (docs/protocol.md §27 (Versioning))", affordancestest.CheckGraph, strings.Replace(graph, `"v":"0"`, `"v":"0","later":1`, 1), nil},
		{"graph of major 1 with a bad expose (docs/protocol.md §27 (Versioning), Action descriptor)", affordancestest.CheckGraph,
			strings.NewReplacer(`"v":"0"`, `"v":"1"`, `"session"`, `"admin"`).Replace(graph),
			[]string{"not a valid graph.json", `/v: value must be '0' (got "1")`, `/actions/0/expose: `, `(got "admin")`, "body: {"}},
		{"graph without actions (docs/protocol.md §7 (Graph))", affordancestest.CheckGraph, `{"v":"0","page":"/","route":"/","entities":{}}`, []string{`/actions: is required`}},
		{"delta from EXAMPLES (docs/protocol.md §22 (Delta))", affordancestest.CheckDelta, delta, nil},
		{"delta with an unknown code (docs/protocol.md decision 2)", affordancestest.CheckDelta, `{"ok":false,"error":{"code":"forbidden","message":"No."}}`, []string{`/error/code: `, `(got "forbidden")`}},
		{"index (docs/protocol.md §24 (Site index))", affordancestest.CheckIndex, index, nil},
		{"index with basic auth (docs/protocol.md §24 (Site index))", affordancestest.CheckIndex, strings.Replace(index, `"bearer"`, `"basic"`, 1), []string{`/auth/1: `}},
		{"call from EXAMPLES (docs/protocol.md §18 (Call))", affordancestest.CheckCall, call, nil},
		{"call with an empty action (docs/protocol.md §18 (Call))", affordancestest.CheckCall, `{"action":""}`, []string{`/action: `}},
		{"body that is not JSON", affordancestest.CheckCall, `{"action":`, []string{`"": not JSON`, `body: {"action":`}},
		{"two JSON values", affordancestest.CheckCall, call + call, []string{`"": not JSON`}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rec := &recorder{TB: t}
			tt.check(rec, []byte(tt.body))
			if tt.want == nil {
				if len(rec.errs) != 0 {
					t.Fatalf("got failure %q, want none", rec.errs)
				}
				return
			}
			if len(rec.errs) != 1 {
				t.Fatalf("got %d failures %q, want 1", len(rec.errs), rec.errs)
			}
			for _, w := range tt.want {
				if !strings.Contains(rec.errs[0], w) {
					t.Errorf("got failure\n%s\nwant it to contain %q", rec.errs[0], w)
				}
			}
		})
	}
}

func TestValidateProblems(t *testing.T) {
	err := affordancestest.Validate(schemas.Graph, []byte(`{"v":"1","page":"products","route":"/","entities":[],"actions":[]}`))
	var ve *affordancestest.ValidationError
	if !errors.As(err, &ve) {
		t.Fatalf("got error %v, want a *ValidationError", err)
	}
	var got []string
	for _, p := range ve.Problems {
		got = append(got, p.Pointer)
	}
	want := []string{"/entities", "/page", "/v"}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("got problems at %q, want at %q (sorted); error: %v", got, want, err)
	}
	if ve.Schema != schemas.Graph {
		t.Errorf("got Schema %q, want %q", ve.Schema, schemas.Graph)
	}
}

func TestValidateUnknownSchema(t *testing.T) {
	err := affordancestest.Validate("graph", []byte(graph))
	var ve *affordancestest.ValidationError
	if err == nil || errors.As(err, &ve) {
		t.Fatalf("got %v, want an error that is not a *ValidationError", err)
	}
	if !strings.Contains(err.Error(), schemas.Graph) {
		t.Errorf("got %q, want it to list the schema names", err)
	}
}

func TestCheckExcerptIsCut(t *testing.T) {
	rec := &recorder{TB: t}
	long := `{"action":"","input":"` + strings.Repeat("é", 2000) + `"}`
	affordancestest.CheckCall(rec, []byte(long))
	if len(rec.errs) != 1 {
		t.Fatalf("got %d failures, want 1", len(rec.errs))
	}
	if len(rec.errs[0]) > 1500 || !strings.Contains(rec.errs[0], "more bytes)") {
		t.Errorf("got a failure of %d bytes ending %q, want the body cut near 1 KiB", len(rec.errs[0]), rec.errs[0][len(rec.errs[0])-40:])
	}
}

func TestValidateConcurrently(t *testing.T) {
	var wg sync.WaitGroup
	for range 8 {
		wg.Go(func() {
			for _, doc := range []struct{ name, body string }{{schemas.Graph, graph}, {schemas.Delta, delta}, {schemas.SiteIndex, index}, {schemas.Call, call}} {
				if err := affordancestest.Validate(doc.name, []byte(doc.body)); err != nil {
					t.Errorf("Validate(%s) = %v, want nil", doc.name, err)
				}
			}
		})
	}
	wg.Wait()
}
