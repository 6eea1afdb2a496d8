package perf

import (
	"bytes"
	"io"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/affordances/affordances-go"
	"github.com/affordances/affordances-go/internal/benchshop"
	"github.com/affordances/affordances-go/internal/loadtest"
)

// baselines are the implementations the library is measured against, by
// the names of their benchmarks, and how much cheaper than each the
// library must be over HTTP (issue 29's budgets: x-<name> at least this).
var baselines = []struct {
	name     string
	new      func(*benchshop.Shop) http.Handler
	overHTTP float64
}{
	{"hand", Hand, 1},
	{"hand-tuned", Tuned, 1.1},
	{"huma", Huma, 1.2},
}

// compared are the headers each baseline must answer as the library does:
// all the library sets but ETag (which the baselines skip) and
// Content-Length (which net/http sets for them).
var compared = []string{"Content-Type", "Vary", "Cache-Control", "X-Content-Type-Options"}

// TestIdentical holds each baseline to the library's answers to the
// benchmarks' requests: the same status, body and headers, request after
// request (the second call of a principal finds the cart the first left),
// each side on a shop of its own.
func TestIdentical(t *testing.T) {
	for _, b := range baselines {
		for _, c := range benchshop.Cases {
			t.Run(b.name+"/"+c.Name, func(t *testing.T) {
				lib, other := benchshop.New().Handler(), b.new(benchshop.New())
				for _, i := range []int{0, 1, 2, 1000, 1001, 2000, 3001} {
					want, got := loadtest.Capture(lib, c.Request(i)), loadtest.Capture(other, c.Request(i))
					if got.Status != want.Status || !bytes.Equal(got.Body, want.Body) {
						t.Fatalf("request %d: answered %d\n%s\nthe library %d\n%s", i, got.Status, got.Body, want.Status, want.Body)
					}
					for _, h := range compared {
						if g, w := got.Header.Values(h), want.Header.Values(h); !slices.Equal(g, w) {
							t.Errorf("request %d: %s: %q, the library's %q", i, h, g, w)
						}
					}
				}
			})
		}
	}
}

// TestRefusesBadInput checks that each baseline bounds addToCart's input,
// as the library does: a quantity of 100 is refused and changes no cart.
func TestRefusesBadInput(t *testing.T) {
	for _, b := range baselines {
		h := b.new(benchshop.New())
		bad := benchshop.Cases[2].Request(0) // call-session
		bad.Body = io.NopCloser(strings.NewReader(`{"action":"addToCart","input":{"sku":"mug-cafe","quantity":100}}`))
		if got := loadtest.Capture(h, bad); got.Status < 400 || got.Status >= 500 {
			t.Errorf("%s: a quantity of 100 answered %d: %s", b.name, got.Status, got.Body)
		}
		graph := loadtest.Capture(h, benchshop.Cases[1].Request(0)) // graph-session
		if bytes.Contains(graph.Body, []byte(`"quantity":100`)) {
			t.Errorf("%s: the refused call changed the cart: %s", b.name, graph.Body)
		}
	}
}

// TestReplaysAsLibrary checks that each baseline answers a bearer call
// sent again with its Idempotency-Key as the library does: the kept
// answer, marked as a replay, and the same key with another body refused
// with the library's status.
func TestReplaysAsLibrary(t *testing.T) {
	call := benchshop.Cases[3].Request // call-bearer
	body := `{"action":"addToCart","input":{"sku":"tote-canvas","quantity":1}}`
	for _, b := range baselines {
		lib, other := benchshop.New().Handler(), b.new(benchshop.New())
		header := call(0).Header // one Idempotency-Key for every request
		send := func(h http.Handler, body string) loadtest.Response {
			r := call(0)
			r.Header, r.Body = header.Clone(), io.NopCloser(strings.NewReader(body))
			return loadtest.Capture(h, r)
		}
		send(lib, body)
		send(other, body)
		for _, retry := range []string{body, strings.Replace(body, "tote-canvas", "mug-cafe", 1)} {
			want, got := send(lib, retry), send(other, retry)
			if got.Status != want.Status || (want.Status == http.StatusOK && !bytes.Equal(got.Body, want.Body)) {
				t.Errorf("%s: %s again: answered %d %s, the library %d %s", b.name, retry, got.Status, got.Body, want.Status, want.Body)
			}
			if g, w := got.Header.Get(affordances.IdempotentReplayedHeader), want.Header.Get(affordances.IdempotentReplayedHeader); g != w {
				t.Errorf("%s: %s again: %s %q, the library's %q", b.name, retry, affordances.IdempotentReplayedHeader, g, w)
			}
		}
	}
}

// TestKeptBounded: the baselines keep at most keptMax answers, as the
// library's memory store does, and a key kept again is not counted twice.
func TestKeptBounded(t *testing.T) {
	c := &callState{kept: map[string]*keptAnswer{}}
	for i := range keptMax + 5 {
		c.keep(strconv.Itoa(i), &keptAnswer{status: http.StatusOK})
		c.keep(strconv.Itoa(i), &keptAnswer{status: http.StatusOK})
	}
	if len(c.kept) != keptMax {
		t.Errorf("kept %d answers, want %d", len(c.kept), keptMax)
	}
}
