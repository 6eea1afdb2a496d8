package bench_test

import (
	"encoding/json"
	"encoding/xml"
	"fmt"
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
// schemas apart from their descriptors, the parts add up to the total, and
// what the agent reads twice in a run is found: a schema already read, a
// descriptor re-sent only to flip its availability.
func TestBreakDown(t *testing.T) {
	dir := t.TempDir()
	addToCart := `{"name":"addToCart","description":"Add a variant of this product to the cart","input":{"type":"object","properties":{"sku":{"type":"string"}},"required":["sku"]},"output":{"type":"object","properties":{"quantity":{"type":"integer"}}},"expose":"session","available":true}`
	placeOrder := `{"name":"placeOrder","description":"Order the cart","input":{"type":"object"},"expose":"confirm","available":true}`
	graph := `{"v":"0","page":"/p","route":"/p","entities":{"cart":{"count":2,"total":3600}},"actions":[` + addToCart + `,` + placeOrder + `],"nav":[{"to":"/cart","label":"Cart"}]}`
	gone := `{"name":"placeOrder","description":"Order the cart","input":{"type":"object"},"expose":"confirm","available":false,"reason":"Your cart is empty."}`
	delta := `{"ok":true,"changed":{"cart":{"count":3}},"output":{"quantity":3},"actionsAdded":[` + gone + `],"message":"Added."}`
	fragment := `{"aal":"0.1","page":"/p","affordances":[]}`
	count := func(s string) int {
		n, err := bench.CountTokens(s)
		if err != nil {
			t.Fatal(err)
		}
		return n
	}
	var obs []bench.Observation
	for i, f := range []struct{ kind, body string }{{"graph", graph}, {"delta", delta}, {"graph", graph}, {"fragment", fragment}} {
		name := fmt.Sprintf("t/affordances/%02d-%s.json", i, f.kind)
		if err := os.MkdirAll(filepath.Join(dir, "t", "affordances"), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, name), []byte(f.body), 0o644); err != nil {
			t.Fatal(err)
		}
		obs = append(obs, bench.Observation{Step: i, Kind: f.kind, Tokens: count(f.body), File: name})
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
	if want := 2*count(graph) + count(delta) + count(fragment); b.Total != want || sum != want {
		t.Errorf("got total %d and parts summing to %d, want %d (the screenshot mode's runs are not read)", b.Total, sum, want)
	}
	input := count(`{"type":"object","properties":{"sku":{"type":"string"}},"required":["sku"]}`) + count(`{"type":"object"}`)
	output := count(`{"type":"object","properties":{"quantity":{"type":"integer"}}}`)
	for name, want := range map[string]int{
		"graphs: entities":       2 * count(`{"cart":{"count":2,"total":3600}}`),
		"graphs: input schemas":  2 * input,
		"graphs: output schemas": 2 * output,
		"graphs: action descriptors, without their schemas": 2 * (count(`{"available":true,"description":"Add a variant of this product to the cart","expose":"session","name":"addToCart"}`) +
			count(`{"available":true,"description":"Order the cart","expose":"confirm","name":"placeOrder"}`)),
		"graphs: nav":              2 * count(`[{"to":"/cart","label":"Cart"}]`),
		"deltas: changed entities": count(`{"cart":{"count":3}}`),
		"deltas: output":           count(`{"quantity":3}`),
		"deltas: actionsAdded (whole descriptors, schemas included)": count(`[` + gone + `]`),
		"AAL fragments": count(fragment),
	} {
		if parts[name] != want {
			t.Errorf("%s: got %d tokens, want %d", name, parts[name], want)
		}
	}
	// The second graph's schemas were all read before, in the same run.
	if b.RepeatedSchemas != input+output {
		t.Errorf("got %d repeated schema tokens, want %d", b.RepeatedSchemas, input+output)
	}
	// placeOrder came back whole only to say it is no longer available.
	var whole map[string]json.RawMessage
	json.Unmarshal([]byte(gone), &whole)
	sorted, _ := json.Marshal(whole)
	if b.ResentDescriptors != count(string(sorted)) {
		t.Errorf("got %d re-sent descriptor tokens, want %d", b.ResentDescriptors, count(string(sorted)))
	}
	if len(b.Actions) != 2 || b.Actions[0].Action != "shop addToCart" || b.Actions[0].Times != 2 || b.Actions[1].Times != 3 {
		t.Errorf("got actions %+v, want addToCart (read twice) first, then placeOrder (three times)", b.Actions)
	}
}

// TestReport: the report leads with what a model reads through the
// bridge (the mcp mode) against the others, and its tables carry each
// mode's tokens under the three policies and the ratios against the mcp
// mode, size by size; the chart is an SVG document.
func TestReport(t *testing.T) {
	task := &bench.Task{ID: "shop-x", Site: "shop", Goal: "Do x.", Start: "/"}
	rep := &bench.Report{
		Browser: "Chromium 156.0.8078.114 built on Debian GNU/Linux 12 (bookworm) (/usr/bin/chromium)",
		Tasks:   []*bench.Task{task},
		Modes:   []string{"mcp", "screenshot", "affordances"},
		Sizes:   []bench.Size{bench.DemoSize, bench.Realistic},
		Runs: []bench.TaskRun{
			{Task: "shop-x", Site: "shop", Mode: "mcp", Size: bench.DemoSize, Verified: true, Steps: 1, Tokens: 400, HistoryTokens: 700, ToolTokens: 500, RequestTokens: 1700},
			{Task: "shop-x", Site: "shop", Mode: "screenshot", Size: bench.DemoSize, Verified: true, Steps: 1, Tokens: 2730, HistoryTokens: 4095, RequestTokens: 4095, TokensOpenAI: 2210, HistoryTokensOpenAI: 3315},
			{Task: "shop-x", Site: "shop", Mode: "affordances", Size: bench.DemoSize, Verified: true, Steps: 1, Tokens: 500, HistoryTokens: 950, RequestTokens: 950},
			{Task: "shop-x", Site: "shop", Mode: "mcp", Size: bench.Realistic, Verified: true, Steps: 1, Tokens: 800, HistoryTokens: 1400, ToolTokens: 500, RequestTokens: 2400},
			{Task: "shop-x", Site: "shop", Mode: "screenshot", Size: bench.Realistic, Verified: true, Steps: 3, Tokens: 5460, HistoryTokens: 13650, RequestTokens: 13650, TokensOpenAI: 4420, HistoryTokensOpenAI: 11050},
			{Task: "shop-x", Site: "shop", Mode: "affordances", Size: bench.Realistic, Verified: false, Error: "check: no"},
		},
	}
	md := rep.Markdown(nil)
	for _, want := range []string{
		// The lead: median, worst and total, under the three policies.
		"| demo | screenshot (Anthropic) | 6.83× | 6.83× `shop-x` | 6.83× | 5.85× | 2.41× | 2.41× `shop-x` | 2.41× |",
		"| realistic | screenshot (OpenAI) | 5.53× | 5.53× `shop-x` | 5.53× | 7.89× | 4.60× | 4.60× `shop-x` | 4.60× |",
		"| realistic | affordances | — | — | — | — | — | — | — |",
		// Each size's tables: latest, history, per request.
		"## At demo size", "## At realistic size",
		"| `shop-x` | 1 / 1 | 400 | 2,730 | 6.83× | 2,210 | 5.53× | 500 | 1.25× |",
		"| `shop-x` | 1 / 1 | 700 | 4,095 | 5.85× | 3,315 | 4.74× | 950 | 1.36× |",
		"| `shop-x` | 1 / 1 | 1,700 | 4,095 | 2.41× | 3,315 | 1.95× | 950 | 0.56× |",
		"| `shop-x` | 1 / 3 | 800 | 5,460 | 6.83× | 4,420 | 5.53× | ✗ 0 | — |",
		"| mcp | 1/1 | 1 | 500 | 400 | 1.00× | 700 | 1.00× | 1,700 | 1.00× |",
		"| realistic | `shop-x` | affordances | **no**: check: no |",
		"oracle", "lower bound", "no model was called", "published estimates", "*derived*", "Per request",
		"with Chromium 156.0.8078.114 built on Debian GNU/Linux 12 (bookworm) (/usr/bin/chromium), in",
	} {
		if !strings.Contains(md, want) {
			t.Errorf("report.md lacks %q:\n%s", want, md)
		}
	}
	if strings.Index(md, "## What a model reads from us") > strings.Index(md, "## Method and limits") {
		t.Errorf("report.md does not lead with the mcp mode's ratios")
	}
	var doc struct {
		XMLName xml.Name
	}
	if err := xml.Unmarshal([]byte(rep.Chart()), &doc); err != nil || doc.XMLName.Local != "svg" {
		t.Errorf("chart.svg: got %v (%v), want an svg document", doc.XMLName, err)
	}
}
