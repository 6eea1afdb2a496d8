package bench

import (
	"bytes"
	"cmp"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"time"
)

// AAL 0.1.1's own anchors for the derived columns (its modelled table,
// docs/protocol.md §28): Sonnet-class input pricing and energy per token.
const (
	DollarsPerMillionTokens = 3.0
	WattHoursPerToken       = 0.0003
)

// Write writes the report under dir: report.json (the runs), report.md
// (method, limits, a table per site, the totals, where the affordances
// mode's tokens go) and chart.svg. It reads the kept observations of the
// affordances mode under dir for the breakdown.
func (r *Report) Write(dir string) error {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	if err := enc.Encode(r.Runs); err != nil {
		return fmt.Errorf("bench: %w", err)
	}
	if err := os.WriteFile(filepath.Join(dir, "report.json"), buf.Bytes(), 0o644); err != nil {
		return fmt.Errorf("bench: %w", err)
	}
	b, err := BreakDown(dir, r.first().Runs)
	if err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(dir, "report.md"), []byte(r.Markdown(b)), 0o644); err != nil {
		return fmt.Errorf("bench: %w", err)
	}
	if err := os.WriteFile(filepath.Join(dir, "chart.svg"), []byte(r.Chart()), 0o644); err != nil {
		return fmt.Errorf("bench: %w", err)
	}
	return nil
}

// first returns the report of the runs of its first size, the one the
// chart draws and the breakdown reads.
func (r *Report) first() *Report {
	if len(r.Sizes) == 0 {
		return r
	}
	return r.sized(r.Sizes[0])
}

// sized returns the report of the runs of size z alone.
func (r *Report) sized(z Size) *Report {
	v := *r
	v.Runs = nil
	for _, run := range r.Runs {
		if run.Size == z {
			v.Runs = append(v.Runs, run)
		}
	}
	v.Sizes = []Size{z}
	return &v
}

// run returns the run of task in mode, nil when there is none: in a
// report of one size ([Report.sized]), the one.
func (r *Report) run(task, mode string) *TaskRun {
	for i := range r.Runs {
		if r.Runs[i].Task == task && r.Runs[i].Mode == mode {
			return &r.Runs[i]
		}
	}
	return nil
}

// base is the mode the others are measured against: mcp, what a model
// reads from us, when it ran; else affordances; else the first.
func (r *Report) base() string {
	for _, m := range []string{"mcp", "affordances"} {
		if slices.Contains(r.Modes, m) {
			return m
		}
	}
	if len(r.Modes) > 0 {
		return r.Modes[0]
	}
	return ""
}

// A policy is how much of what it observed an agent reads again: the
// latest observation only, its whole transcript at each step, or a model
// request at each step with the tool definitions and the transcript.
type policy int

const (
	latest policy = iota
	history
	perRequest
)

var policies = []policy{latest, history, perRequest}

func (p policy) String() string {
	return [...]string{"latest observation only", "full history", "per request"}[p]
}

// A column is one way of counting a mode's runs in the report's tables:
// a mode, or a mode with images counted by OpenAI's formula.
type column struct {
	label, mode string
	openAI      bool
}

func (c column) count(r *TaskRun, p policy) int {
	switch {
	case p == latest && c.openAI:
		return cmpOr(r.TokensOpenAI, r.Tokens)
	case p == latest:
		return r.Tokens
	case p == history && c.openAI:
		return cmpOr(r.HistoryTokensOpenAI, r.HistoryTokens)
	case p == history:
		return r.HistoryTokens
	case c.openAI && r.HistoryTokensOpenAI > 0:
		return r.RequestTokens - r.HistoryTokens + r.HistoryTokensOpenAI
	}
	return r.RequestTokens
}

// columns returns the report's columns: the base mode first (the
// baseline of the ratios), then the others in report order, and after a
// mode with images its OpenAI count.
func (r *Report) columns() []column {
	var cols []column
	base := r.base()
	names := slices.Clone(r.Modes)
	if i := slices.Index(names, base); i > 0 {
		names = append([]string{base}, slices.Delete(names, i, i+1)...)
	}
	for _, m := range names {
		cols = append(cols, column{label: m, mode: m})
		images := slices.ContainsFunc(r.Runs, func(t TaskRun) bool { return t.Mode == m && t.TokensOpenAI > 0 })
		if images {
			cols[len(cols)-1].label = m + " (Anthropic)"
			cols = append(cols, column{label: m + " (OpenAI)", mode: m, openAI: true})
		}
	}
	return cols
}

func cmpOr(a, b int) int {
	if a != 0 {
		return a
	}
	return b
}

// ratio is the share of one task: c's tokens over the base mode's, and
// the task's id.
type ratio struct {
	task string
	x    float64
}

// ratios returns, for each task where both ran verified, c's tokens over
// the base mode's, in the order of tasks.
func (r *Report) ratios(c column, tasks []*Task, p policy) []ratio {
	var out []ratio
	base := column{mode: r.base()}
	for _, t := range tasks {
		a, m := r.run(t.ID, base.mode), r.run(t.ID, c.mode)
		if a == nil || m == nil || !a.Verified || !m.Verified || base.count(a, p) == 0 {
			continue
		}
		out = append(out, ratio{t.ID, float64(c.count(m, p)) / float64(base.count(a, p))})
	}
	return out
}

// xs returns the ratios' values.
func xs(rs []ratio) []float64 {
	out := make([]float64, len(rs))
	for i, r := range rs {
		out[i] = r.x
	}
	return out
}

// worst returns the ratio closest to 1 from above, the task where the
// base mode saves least.
func worst(rs []ratio) ratio {
	return slices.MinFunc(rs, func(a, b ratio) int { return cmp.Compare(a.x, b.x) })
}

// Median returns the median of xs, 0 for none.
func Median(xs []float64) float64 {
	if len(xs) == 0 {
		return 0
	}
	s := slices.Clone(xs)
	slices.Sort(s)
	if n := len(s); n%2 == 1 {
		return s[n/2]
	} else {
		return (s[n/2-1] + s[n/2]) / 2
	}
}

// sizeNames says what each size of seed is, in the report.
var sizeNames = map[Size]string{
	DemoSize:  "demo size (the demos as `affordances demo` seeds them)",
	Realistic: "realistic size (a shop of about 200 products with their reviews, boards of about 120 tasks)",
}

// Markdown renders the report, with b the breakdown of the affordances
// mode's tokens at the first size.
func (r *Report) Markdown(b *Breakdown) string {
	var w strings.Builder
	p := func(format string, args ...any) { fmt.Fprintf(&w, format, args...) }
	verified, total := 0, len(r.Runs)
	for _, run := range r.Runs {
		if run.Verified {
			verified++
		}
	}
	base := r.base()
	p("# The perception bench\n\n")
	p("The same %d tasks on the two demo sites (the shop and the task board), at %d %s of seed, each performed by agents that perceive pages in %d ways, ",
		len(r.Tasks), len(r.Sizes), plural(len(r.Sizes), "size", "sizes"), len(r.Modes))
	p("every observation kept and counted. %d of %d runs verified against the sites' databases. ", verified, total)
	browser := "no Chromium"
	if r.Browser != "" {
		browser = r.Browser
	}
	p("Run on %s, %s/%s, %d CPUs, with %s, in %s. Generated by `affordances bench`; every observation is under `<size>/<task>/<mode>/` beside this file, so anyone can recount.\n\n",
		r.Started.UTC().Format("2006-01-02"), runtime.GOOS, runtime.GOARCH, runtime.NumCPU(), browser, r.Elapsed.Round(time.Second))
	p("![Tokens per task by mode, log scale](chart.svg)\n\n")

	p("## What a model reads from us\n\n")
	p("Per task, the other mode's tokens over the **%s** mode's, on the tasks both verified: the median, the *worst* task (where %s saves least) and the total of each over the total of %s.\n\n", base, base, base)
	p("| Size | Mode | Latest only: median | worst | total | Full history: median | Per request: median | worst | total |\n| --- | --- | ---: | --- | ---: | ---: | ---: | --- | ---: |\n")
	for _, z := range r.Sizes {
		v := r.sized(z)
		for _, c := range v.columns() {
			if c.mode == base || c.mode == "webmcp" || c.mode == "playwright-mcp-webmcp" {
				continue
			}
			p("| %s | %s |", z, c.label)
			for _, pol := range policies {
				rs := v.ratios(c, v.Tasks, pol)
				if len(rs) == 0 {
					p(" — |")
					if pol != history {
						p(" — | — |")
					}
					continue
				}
				p(" %s |", times(Median(xs(rs))))
				if pol != history {
					wr := worst(rs)
					p(" %s `%s` | %s |", times(wr.x), wr.task, v.totalRatio(c, pol))
				}
			}
			p("\n")
		}
	}
	if slices.Contains(r.Modes, "playwright-mcp-webmcp") {
		p("\nwebmcp and playwright-mcp-webmcp are left out: they read no page content but where a task only reads its page (see the method).\n\n")
	} else {
		p("\nwebmcp is left out: it reads no page content (see the method).\n\n")
	}

	p("## Method and limits\n\n")
	p("- **An oracle plan, not a model.** Every mode performs the same fixed plan (the calls that reach the goal, in order); no model was called, nothing was guessed or retried. What a mode reads is therefore a **lower bound** for every mode: a real agent reads more (it explores, re-reads, fails and retries), and a browser agent more than most.\n")
	p("- **What each mode reads.** `mcp`: this repository's MCP bridge (package mcpbridge) driven by an MCP client (the Go SDK's), configured with the site and the person's session: `fetch_affordances` of the start page, one `execute_affordance` a step, and `fetch_affordances` of another page only when a step is on a page not read yet; what is counted is each tool result's **text content**, what an MCP client hands the model (the compact form of docs/model-text.md; the JSON `structuredContent` is for programs), and the bridge's tool definitions. The person answers the bridge's questions (elicitation): yes to what they asked for, no where the task says they decline. `screenshot`: a 1280×800 PNG of the viewport after the start page and after each UI interaction: going to the step's page when the agent is elsewhere, filling a field, choosing an option, clicking the element found by its `data-aal` selector, and for a confirm action the confirmation page's button; before acting on an element below the viewport, and through the main content of a task that only reads its page, the agent **scrolls** a viewport at a time, each scroll an interaction with its screenshot. `axtree`: Playwright's `page.ariaSnapshot({mode: \"ai\"})` of the whole page at the same moments, no scrolling. `playwright-mcp`: the same interactions through the real Playwright MCP server (`@playwright/mcp` %s, pinned by internal/node's lockfile) in its default configuration, each tool result as the client receives it: `browser_navigate`, `browser_fill_form` (one call fills a form), `browser_click`, and a `browser_snapshot` after each navigation and click, since this version's action results only link to a snapshot file (with the page's address and title and the Playwright code run); and its tool definitions on every request. `playwright-mcp-lean`: the same server in its leanest documented configuration, what a user counting tokens runs: `--snapshot-mode none` (an action's result holds neither a snapshot nor its link, and names the page only when it changed; this version has no incremental mode) and `--codegen none` (nor the Playwright code), so the agent calls `browser_snapshot` only when it needs to read the page: before acting on a page that may have changed since it read it, for the refs it acts on, and once after its last action, for the outcome; the same tool definitions (`--caps` only adds tools; `--image-responses omit` and `--console-level` would change nothing here: no image, no console entry). Both read whole snapshots: `browser_snapshot`'s `depth` or `target` and `browser_find` read less where a model guesses well where on the page its answer is, which an oracle does not model. `affordances`: the wire itself, the raw JSON of the start page's graph, one call per step and its delta (for a confirm action, the `confirm_required` delta, then the call with `confirm: true`), another page's graph only when a step is on a page the agent has not read. `webmcp`: in Chromium with WebMCPTesting, the tools the page registers (name, description, input schema, and the annotations the page gave them, which some releases do not list: docs/webmcp.md) when the agent arrives on a page or they change, and each tool's result (the delta); a confirm action's tool returns the site's summary, the person confirms on the page, and the agent reads the tools of the page they end on. `playwright-mcp-webmcp`: the same page tools as the Playwright MCP server (`@playwright/mcp` %s, in its default configuration, its Chromium launched with `--enable-features=WebMCP` through its configuration file) offers them to the model, as MCP tools of its own named `webmcp_<tool>` (the page's description after an `[UNTRUSTED: …]` note, and `[CONSEQUENTIAL: … Confirm with the user first.]` or `[READ-ONLY]` from the page's annotations; the page's input schema): `browser_navigate` to each page of the plan (its result links the page's snapshot, unread, and says how many WebMCP tools the page has) and one `webmcp_<tool>` call a step, whose result is the page's delta as indented JSON after the server's untrusted-output note; each result as the client receives it. The server lists a page's tools only when it takes a snapshot (a navigation's, a click's, `browser_snapshot`), not after a tool's call, and then sends `notifications/tools/list_changed`: the client lists the tools again, and the model is given those **tool definitions** (the server's 25 and the page's) on every request from that step on. So the agent calls `browser_snapshot`, the whole page inline under its tools, only where it needs one: for a task that only reads its page, and before calling a tool the latest delta says came or went (the page's script registers it, the server lists it only with a snapshot), or on a page the person's confirmation led to. A confirm action is as in `webmcp`: the tool returns the summary, the person confirms on the page (their clicks, neither read nor counted), and a tool marked consequential the agent runs only after asking the person.\n", PlaywrightMCPVersion, PlaywrightMCPVersion)
	p("- **WebMCP carries no page state.** Tools say what can be done, not what the page shows: the webmcp agent here is handed the oracle's inputs (the sku, the address id, the task id) and reads none of the page's content, which a real in-page agent must read too (its text, DOM or accessibility tree). Its counts are therefore far below what such an agent pays, and not comparable on equal terms; a fair estimate adds the axtree mode's page reads to it. The same holds of playwright-mcp-webmcp, which reads a page's snapshot only for a task that only reads its page, or to have the server list the page's tools again.\n")
	p("- **Refusals and a person's no, alike in every mode.** An action the page shows unavailable (a disabled button; `available: false` with its reason) is not attempted: the agent sees it and stops. A confirm action the person declines is clicked (called) once, and its confirmation page (`confirm_required` delta) is the last thing read. A delete the agent's AAL gate must ask about, and the person declines, is not clicked (called): a browser agent has filled in its fields; the affordances agent has read the page's AAL fragment to gate it, and pays for it, while the browser modes are given the same AAL facts without charge (they would read them from the page); the mcp agent's bridge gates it and asks the person, at no cost to the model.\n")
	p("- **Consent is not measured.** The demos run with their approval pages off (the shop as `affordances demo --no-approval`, the board with `-no-approval`): by default an agent's `placeOrder` (the shop) or `deleteBoard` (the board) waits for the person to approve it on the site's approval page (human-verified confirmation), a page the person reads, not the agent, so here `confirm: true` alone places the order or deletes the board. The browser modes confirm on the person's own confirmation page, which counts as the approval either way.\n")
	p("- **Counting.** Text is counted in o200k tokens (github.com/tiktoken-go/tokenizer, offline); other models' tokenizers differ by some percent. Images are the providers' **published estimates**, not measured: Anthropic's width × height / 750, and OpenAI's 170 tokens a 512-pixel tile plus 85 (high detail); both are shown. Tool definitions are counted as a model API takes them: name, description and input schema of each tool, as JSON.\n")
	p("- **Three context policies.** *Latest observation only*: the sum of the observations, what an agent pays that keeps only the page in front of it. *Full history*: at each step the sum of everything observed so far, summed over the steps (observations that follow the same step, a delta and the next page's graph, count as one step), what an agent pays that keeps its transcript. *Per request*: a model request at each step, each with the tool definitions and the transcript so far: the full history plus the tool definitions once a step (the MCP modes' own tools; the other modes are given none here, so for them it equals the full history). None counts the agent's own instructions, the person's goal or the model's output (its calls).\n")
	p("- **Gates.** Apart from those deletes, no mode pays for gating: an agent that gates every step would read the AAL fragment of every page it acts on (a few hundred tokens each, in the affordances mode); the mcp agent's bridge reads it, and the model never does. The affordances agent never reads the site index or the AAL manifest, and finds a fragment by docs/protocol.md decision 7's path convention.\n")
	p("- **Derived columns** (marked *derived*): dollars at $%.0f per million input tokens and watt-hours at %.4f Wh per token, AAL 0.1.1's own anchors; they are arithmetic on the token counts, not measurements.\n", DollarsPerMillionTokens, WattHoursPerToken)
	p("- **Two sizes, two demos of ours.** The demo size is what `affordances demo` seeds: a few of each thing. The realistic size seeds what a small real site holds (about 200 products with their reviews, boards of about 120 tasks) and runs the same task code. The pages are as a person would design them at either size (HTML pages paginate as real ones do; no padding of the HTML, no trimming of the graph beyond what the spec allows); other sites' pages are larger or smaller.\n\n")

	for _, z := range r.Sizes {
		r.sized(z).writeSize(&w, z)
	}

	if b != nil {
		r.writeBreakdown(&w, b)
	}

	p("## Tasks\n\n| Task | Goal | Start | As |\n| --- | --- | --- | --- |\n")
	for _, t := range r.Tasks {
		as := t.As
		if as == "" {
			as = "nobody"
		}
		p("| `%s` | %s | `%s` | %s |\n", t.ID, strings.ReplaceAll(t.Goal, "|", "\\|"), t.Start, as)
	}
	p("\n## Every run\n\n")
	p("| Size | Task | Mode | Verified | Steps | Observations | Bytes | Tokens | History | Tools | Per request | OpenAI | Wall time |\n| --- | --- | --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |\n")
	for _, run := range r.Runs {
		v := "yes"
		if !run.Verified {
			v = "**no**: " + strings.ReplaceAll(run.Error, "|", "\\|")
		}
		openAI := ""
		if run.TokensOpenAI > 0 {
			openAI = thousands(run.TokensOpenAI)
		}
		p("| %s | `%s` | %s | %s | %d | %d | %s | %s | %s | %s | %s | %s | %.1f s |\n", run.Size, run.Task, run.Mode, v, run.Steps, len(run.Observations),
			thousands(run.Bytes), thousands(run.Tokens), thousands(run.HistoryTokens), thousands(run.ToolTokens), thousands(run.RequestTokens), openAI, float64(run.Millis)/1000)
	}
	return w.String()
}

// totalRatio is c's tokens over the base mode's, summed over the tasks
// both verified.
func (r *Report) totalRatio(c column, p policy) string {
	base := column{mode: r.base()}
	sum, of := 0, 0
	for _, t := range r.Tasks {
		a, m := r.run(t.ID, base.mode), r.run(t.ID, c.mode)
		if a != nil && m != nil && a.Verified && m.Verified {
			sum += c.count(m, p)
			of += base.count(a, p)
		}
	}
	if of == 0 {
		return "—"
	}
	return times(float64(sum) / float64(of))
}

// writeSize writes the tables of one size: the totals of every mode, and
// a table per site and policy.
func (r *Report) writeSize(w *strings.Builder, z Size) {
	p := func(format string, args ...any) { fmt.Fprintf(w, format, args...) }
	cols := r.columns()
	base := r.base()
	p("## At %s\n\n", sizeNames[z])
	p("| Mode | Verified | Steps | Tool definitions | Tokens, latest only | × %s | Tokens, full history | × %s | Tokens, per request | × %s | $, per request (*derived*) | Wh, per request (*derived*) |\n", base, base, base)
	p("| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |\n")
	for _, c := range cols {
		var sums [3]int
		ok, n, steps, tools := 0, 0, 0, 0
		for _, run := range r.Runs {
			if run.Mode != c.mode {
				continue
			}
			n++
			if run.Verified {
				ok++
			}
			steps += run.Steps
			tools = max(tools, run.ToolTokens)
			for _, pol := range policies {
				sums[pol] += c.count(&run, pol)
			}
		}
		p("| %s | %d/%d | %d | %s |", c.label, ok, n, steps, thousands(tools))
		for _, pol := range policies {
			p(" %s | %s |", thousands(sums[pol]), r.totalRatio(c, pol))
		}
		p(" %s | %s |\n", dollars(sums[perRequest]), wattHours(sums[perRequest]))
	}
	p("\nTool definitions are the tokens of one model request's tools; × is the total over the %s mode's total, on the tasks both verified.\n\n", base)

	for _, site := range Sites() {
		var tasks []*Task
		for _, t := range r.Tasks {
			if t.Site == site {
				tasks = append(tasks, t)
			}
		}
		if len(tasks) == 0 {
			continue
		}
		p("### The %s, %s\n\n", map[string]string{"shop": "shop", "board": "task board"}[site], z)
		for _, pol := range policies {
			p("**%s** (tokens; × is the mode over %s)\n\n", upper(pol.String()), base)
			p("| Task | Steps |")
			for _, c := range cols {
				p(" %s |", c.label)
				if c.mode != base {
					p(" × |")
				}
			}
			p("\n| --- | --- |")
			for _, c := range cols {
				p(" ---: |")
				if c.mode != base {
					p(" ---: |")
				}
			}
			p("\n")
			for _, t := range tasks {
				p("| `%s` | %s |", t.ID, r.steps(t))
				a := r.run(t.ID, base)
				for _, c := range cols {
					m := r.run(t.ID, c.mode)
					p(" %s |", cell(m, c, pol))
					if c.mode != base {
						if a != nil && m != nil && a.Verified && m.Verified && a.tokensBy(pol) > 0 {
							p(" %s |", times(float64(c.count(m, pol))/float64(a.tokensBy(pol))))
						} else {
							p(" — |")
						}
					}
				}
				p("\n")
			}
			p("| **Total** | |")
			for _, c := range cols {
				sum := 0
				for _, t := range tasks {
					if m := r.run(t.ID, c.mode); m != nil {
						sum += c.count(m, pol)
					}
				}
				p(" **%s** |", thousands(sum))
				if c.mode != base {
					p(" |")
				}
			}
			p("\n| **Median** | |")
			for _, c := range cols {
				var counts []float64
				for _, t := range tasks {
					if m := r.run(t.ID, c.mode); m != nil {
						counts = append(counts, float64(c.count(m, pol)))
					}
				}
				p(" %s |", thousands(int(math.Round(Median(counts)))))
				if c.mode != base {
					p(" **%s** |", times(Median(xs(r.ratios(c, tasks, pol)))))
				}
			}
			p("\n\n")
		}
		p("Steps are the calls of the %s mode / the UI interactions of the first browser mode.\n\n", base)
	}
}

// tokensBy is the run's tokens under policy p, images by Anthropic's
// formula.
func (r *TaskRun) tokensBy(p policy) int { return column{mode: r.Mode}.count(r, p) }

// upper returns s with its first letter in upper case.
func upper(s string) string {
	if s == "" {
		return s
	}
	return strings.ToUpper(s[:1]) + s[1:]
}

// plural returns one when n is 1, else many.
func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

// steps says how many steps the task took in the base mode and in the
// first browser mode that ran.
func (r *Report) steps(t *Task) string {
	var parts []string
	base := r.base()
	if a := r.run(t.ID, base); a != nil {
		parts = append(parts, fmt.Sprint(a.Steps))
	}
	for _, m := range r.Modes {
		if m == base || m == "affordances" || m == "mcp" || m == "webmcp" || m == "playwright-mcp-webmcp" {
			continue
		}
		if run := r.run(t.ID, m); run != nil {
			parts = append(parts, fmt.Sprint(run.Steps))
			break
		}
	}
	return strings.Join(parts, " / ")
}

func cell(m *TaskRun, c column, p policy) string {
	if m == nil {
		return "—"
	}
	s := thousands(c.count(m, p))
	if !m.Verified {
		s = "✗ " + s
	}
	return s
}

// thousands writes n with commas: 12,345.
func thousands(n int) string {
	s := fmt.Sprint(n)
	if n < 0 {
		return "-" + thousands(-n)
	}
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s
}

func times(x float64) string {
	switch {
	case x >= 100:
		return fmt.Sprintf("%.0f×", x)
	case x >= 10:
		return fmt.Sprintf("%.1f×", x)
	default:
		return fmt.Sprintf("%.2f×", x)
	}
}

func dollars(tokens int) string {
	return fmt.Sprintf("$%.4f", float64(tokens)*DollarsPerMillionTokens/1e6)
}

func wattHours(tokens int) string { return fmt.Sprintf("%.2f", float64(tokens)*WattHoursPerToken) }
