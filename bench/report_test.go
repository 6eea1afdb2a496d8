package bench_test

import (
	"encoding/xml"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/affordances/affordances-go/bench"
)

// TestHistory: the latest-only policy is the sum of the observations; the
// full history re-reads at each step everything observed so far, with
// observations that follow the same step read together.
func TestHistory(t *testing.T) {
	tokens := func(o bench.Observation) int { return o.Tokens }
	for _, tc := range []struct {
		name string
		obs  []bench.Observation
		want int
	}{
		{"none", nil, 0},
		{"one page", []bench.Observation{{Step: 0, Tokens: 500}}, 500},
		// 100, then 100+10, then 100+10+20: 340.
		{"three steps", []bench.Observation{{Step: 0, Tokens: 100}, {Step: 1, Tokens: 10}, {Step: 2, Tokens: 20}}, 340},
		// A delta and the next page's graph after step 1 are one step:
		// 100, then 100+10+50.
		{"two after one step", []bench.Observation{{Step: 0, Tokens: 100}, {Step: 1, Tokens: 10}, {Step: 1, Tokens: 50}}, 260},
		// The fragment read before deciding, at step 0.
		{"two at the start", []bench.Observation{{Step: 0, Tokens: 100}, {Step: 0, Tokens: 30}}, 130},
	} {
		if got := bench.History(tc.obs, tokens); got != tc.want {
			t.Errorf("%s: got %d, want %d", tc.name, got, tc.want)
		}
	}
}

func TestMedian(t *testing.T) {
	for _, tc := range []struct {
		xs   []float64
		want float64
	}{{nil, 0}, {[]float64{3}, 3}, {[]float64{9, 1, 5}, 5}, {[]float64{4, 1, 3, 2}, 2.5}} {
		if got := bench.Median(tc.xs); got != tc.want {
			t.Errorf("Median(%v): got %v, want %v", tc.xs, got, tc.want)
		}
	}
}

// TestBreakDown: each part of a graph and a delta is counted on its own,
// schemas apart from their descriptors, and the parts add up to the total.
func TestBreakDown(t *testing.T) {
	dir := t.TempDir()
	graph := `{"v":"0","page":"/p","route":"/p","entities":{"cart":{"count":2,"total":3600}},"actions":[{"name":"addToCart","description":"Add a variant of this product to the cart","input":{"type":"object","properties":{"sku":{"type":"string"}},"required":["sku"]},"output":{"type":"object","properties":{"quantity":{"type":"integer"}}},"expose":"session","available":true}],"nav":[{"to":"/cart","label":"Cart"}]}`
	delta := `{"ok":true,"changed":{"cart":{"count":3}},"output":{"quantity":3},"actionsAdded":[{"name":"placeOrder","description":"Order the cart","input":{"type":"object"},"expose":"confirm","available":false,"reason":"Your cart is empty."}],"message":"Added."}`
	fragment := `{"aal":"0.1","page":"/p","affordances":[]}`
	files := map[string]string{"t/affordances/00-graph.json": graph, "t/affordances/01-delta.json": delta, "t/affordances/02-fragment.json": fragment}
	var obs []bench.Observation
	count := func(s string) int {
		n, err := bench.CountTokens(s)
		if err != nil {
			t.Fatal(err)
		}
		return n
	}
	for i, name := range []string{"t/affordances/00-graph.json", "t/affordances/01-delta.json", "t/affordances/02-fragment.json"} {
		if err := os.MkdirAll(filepath.Dir(filepath.Join(dir, name)), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, name), []byte(files[name]), 0o644); err != nil {
			t.Fatal(err)
		}
		kind := strings.TrimSuffix(strings.SplitN(filepath.Base(name), "-", 2)[1], ".json")
		obs = append(obs, bench.Observation{Step: i, Kind: kind, Tokens: count(files[name]), File: name})
	}
	runs := []bench.TaskRun{
		{Task: "t", Site: "shop", Mode: "affordances", Observations: obs},
		{Task: "t", Site: "shop", Mode: "screenshot", Observations: []bench.Observation{{Kind: "screenshot", Tokens: 1365, File: "missing.png"}}},
	}
	b, err := bench.BreakDown(dir, runs)
	if err != nil {
		t.Fatal(err)
	}
	parts := map[string]int{}
	sum := 0
	for _, p := range b.Parts {
		parts[p.Name] = p.Tokens
		sum += p.Tokens
	}
	if want := count(graph) + count(delta) + count(fragment); b.Total != want || sum != want {
		t.Errorf("got total %d and parts summing to %d, want %d (the screenshot mode's runs are not read)", b.Total, sum, want)
	}
	for name, want := range map[string]int{
		"graphs: entities":                                  count(`{"cart":{"count":2,"total":3600}}`),
		"graphs: input schemas":                             count(`{"type":"object","properties":{"sku":{"type":"string"}},"required":["sku"]}`),
		"graphs: output schemas":                            count(`{"type":"object","properties":{"quantity":{"type":"integer"}}}`),
		"graphs: action descriptors, without their schemas": count(`{"available":true,"description":"Add a variant of this product to the cart","expose":"session","name":"addToCart"}`),
		"graphs: nav":                                       count(`[{"to":"/cart","label":"Cart"}]`),
		"deltas: changed entities":                          count(`{"cart":{"count":3}}`),
		"deltas: output":                                    count(`{"quantity":3}`),
		"deltas: actionsAdded (whole descriptors, schemas included)": count(`[{"name":"placeOrder","description":"Order the cart","input":{"type":"object"},"expose":"confirm","available":false,"reason":"Your cart is empty."}]`),
		"AAL fragments": count(fragment),
	} {
		if parts[name] != want {
			t.Errorf("%s: got %d tokens, want %d", name, parts[name], want)
		}
	}
	if len(b.Actions) != 2 || b.Actions[0].Action != "shop addToCart" || b.Actions[0].Times != 1 {
		t.Errorf("got actions %+v, want addToCart first, then placeOrder", b.Actions)
	}
}

// TestReport: the tables carry each mode's tokens under both policies and
// the ratios against the affordances mode, and the chart is an SVG
// document.
func TestReport(t *testing.T) {
	task := &bench.Task{ID: "shop-x", Site: "shop", Goal: "Do x.", Start: "/"}
	rep := &bench.Report{
		Tasks: []*bench.Task{task},
		Modes: []string{"screenshot", "affordances"},
		Runs: []bench.TaskRun{
			{Task: "shop-x", Site: "shop", Mode: "screenshot", Verified: true, Steps: 1, Tokens: 2730, HistoryTokens: 4095, TokensOpenAI: 2210, HistoryTokensOpenAI: 3315},
			{Task: "shop-x", Site: "shop", Mode: "affordances", Verified: true, Steps: 1, Tokens: 500, HistoryTokens: 950},
		},
	}
	md := rep.Markdown(nil)
	for _, want := range []string{
		"| `shop-x` | 1 / 1 | 500 | 2,730 | 5.46× | 2,210 | 4.42× |", // latest only
		"| `shop-x` | 1 / 1 | 950 | 4,095 | 4.31× | 3,315 | 3.49× |", // full history
		"| screenshot (Anthropic) | 1/1 | 2,730 | $0.0082 | 0.82 | 4,095 |",
		"oracle", "lower bound", "no model was called", "published estimates", "*derived*",
	} {
		if !strings.Contains(md, want) {
			t.Errorf("report.md lacks %q:\n%s", want, md)
		}
	}
	var doc struct {
		XMLName xml.Name
	}
	if err := xml.Unmarshal([]byte(rep.Chart()), &doc); err != nil || doc.XMLName.Local != "svg" {
		t.Errorf("chart.svg: got %v (%v), want an svg document", doc.XMLName, err)
	}
}
