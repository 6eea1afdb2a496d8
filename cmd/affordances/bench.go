package main

import (
	"context"
	"flag"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"text/tabwriter"

	"github.com/affordances/affordances-go/bench"
)

var benchCommand = &command{
	Name:    "bench",
	Summary: "Measure what agents read to do the same tasks through our MCP bridge, screenshots, accessibility trees, Playwright MCP, the wire and WebMCP.",
	Details: `The perception bench: 30 task fixtures on the two demo sites (16 on the
shop, 14 on the task board), each performed by an oracle plan in every
mode: mcp (this repository's MCP bridge driven by an MCP client: the text
of each tool result, what the model reads, and the bridge's tool
definitions), screenshot (a 1280x800 PNG after each UI interaction, in
headless Chromium, scrolling a viewport at a time to what a step needs),
axtree (Playwright's ariaSnapshot in "ai" mode, same interactions),
playwright-mcp (the same interactions through the real @playwright/mcp
server: its tool results and tool definitions), playwright-mcp-lean (the
same server in its leanest documented configuration, --snapshot-mode none
--codegen none, reading a snapshot only when it must), affordances (the wire's
raw JSON: the page's graph, one call per step and its delta), webmcp
(the page's WebMCP tools and their results, where the demos register
them) and playwright-mcp-webmcp (the same page tools as Playwright MCP
offers them to the model, webmcp_<tool>, in Chromium with WebMCP on: its
navigations' and the tools' results, a snapshot only where the agent needs
the server to list the page's tools again or reads the page, and the tool
definitions, the page's tools among them, as they change). Each task runs at two sizes of seed (--sizes): demo, as affordances
demo seeds it, and realistic (a shop of about 200 products with their
reviews, boards of about 120 tasks), the same task code. Every task starts
on a fresh demo it starts itself, and its final state is checked against
the site's database: a mode that fails a task counts as failed, never
skipped. The demos it starts place orders and delete boards without the
approval page (as demo --no-approval, and the board's -no-approval):
consent is not what it measures. The board, a program of its own
(examples/board), is built with go build at the start: the bench runs in
this repository, with the go command.

What it measures: every observation's bytes and o200k tokens (images by
Anthropic's and OpenAI's published formulas), steps and wall time, under
three context policies: the latest observation only; the full history an
agent that keeps its transcript reads; and per request, a model request
a step with the tool definitions and the transcript so far. Limits: the
plans are an oracle's, so every count is a lower bound; no model is
called.

Results go to --out: report.md (what a model reads from us against the
others first, then method, limits, a table per size, site and policy,
where the affordances mode's tokens go), report.json (one entry per size,
task and mode, with its size and requestTokens), chart.svg, and every
observation kept under <size>/<task>/<mode>/, so anyone can recount.
Progress (size, task, mode, step) goes to stderr, a summary to stdout.

The browser modes need Chromium (Debian's chromium package); axtree and the
playwright-mcp modes need Node.js 20 and npm: the first time, the bench installs
the npm packages the repository's package-lock.json pins (the binary holds
a copy) with npm ci into $XDG_CACHE_HOME/affordances/bench-node (~/.cache
when unset), and says so on stderr; later runs use that install. The mcp
and affordances modes take seconds; the whole bench, minutes, nearly all
in the browser modes.
Exit status: 0 every run verified, 1 a run failed, 2 a usage error.`,
	Example: `affordances bench --out /tmp/bench
# what a model reads through the bridge against screenshots, demo size only
affordances bench --modes mcp,screenshot --sizes demo --out /tmp/bench
# only the mcp mode, on the shop
affordances bench --sites shop --modes mcp --out /tmp/bench
# two tasks, to see what they read
affordances bench --tasks shop-checkout,board-move-task --out /tmp/bench && less /tmp/bench/report.md`,
	Flags: func(fs *flag.FlagSet) func(context.Context, *env, []string) error {
		sites := fs.String("sites", strings.Join(bench.Sites(), ","), "comma-separated `sites` to run tasks on")
		tasks := fs.String("tasks", "", "comma-separated task `ids` (default: every task of the sites)")
		modes := fs.String("modes", strings.Join(bench.ModeNames(), ","), "comma-separated `modes` to run")
		sizes := fs.String("sizes", "demo,realistic", "comma-separated `sizes` of seed to run each task at: demo, realistic")
		out := fs.String("out", "bench-results", "`directory` the report and observations go to")
		return func(ctx context.Context, e *env, args []string) error {
			if len(args) > 0 {
				return usagef("unexpected argument %q", args[0])
			}
			opts := &bench.Options{Sites: list(*sites), Tasks: list(*tasks), Modes: list(*modes), Out: *out, Progress: e.stderr}
			for _, s := range opts.Sites {
				if !slices.Contains(bench.Sites(), s) {
					return usagef("no site %q: the sites are %s", s, strings.Join(bench.Sites(), ", "))
				}
			}
			for _, m := range opts.Modes {
				if !slices.Contains(bench.ModeNames(), m) {
					return usagef("no mode %q: the modes are %s", m, strings.Join(bench.ModeNames(), ", "))
				}
			}
			for _, z := range list(*sizes) {
				if !slices.Contains(bench.Sizes(), bench.Size(z)) {
					return usagef("no size %q: the sizes are demo, realistic", z)
				}
				opts.Sizes = append(opts.Sizes, bench.Size(z))
			}
			var ids []string
			for _, t := range bench.Tasks() {
				ids = append(ids, t.ID)
			}
			for _, id := range opts.Tasks {
				if !slices.Contains(ids, id) {
					return usagef("no task %q: 'affordances bench --help' lists where to find them; the ids are %s", id, strings.Join(ids, ", "))
				}
			}
			if *out == "" {
				return usagef("--out names no directory")
			}
			rep, err := bench.Run(ctx, opts)
			if err != nil {
				return err
			}
			printBench(e, rep)
			for _, r := range rep.Runs {
				if !r.Verified {
					return errFailed
				}
			}
			return nil
		}
	},
}

// list splits a comma-separated flag value, dropping empty items.
func list(s string) []string {
	var out []string
	for _, f := range strings.Split(s, ",") {
		if f = strings.TrimSpace(f); f != "" {
			out = append(out, f)
		}
	}
	return out
}

// printBench prints the totals of each size and mode and where the
// report is.
func printBench(e *env, rep *bench.Report) {
	tw := tabwriter.NewWriter(e.stdout, 0, 8, 2, ' ', 0)
	fmt.Fprintln(tw, "SIZE\tMODE\tVERIFIED\tSTEPS\tTOKENS (LATEST)\tTOKENS (HISTORY)\tTOKENS (PER REQUEST)\t")
	for _, z := range rep.Sizes {
		for _, m := range rep.Modes {
			n, ok, steps, latest, history, request := 0, 0, 0, 0, 0, 0
			for _, r := range rep.Runs {
				if r.Mode != m || r.Size != z {
					continue
				}
				n++
				if r.Verified {
					ok++
				}
				steps += r.Steps
				latest += r.Tokens
				history += r.HistoryTokens
				request += r.RequestTokens
			}
			fmt.Fprintf(tw, "%s\t%s\t%d/%d\t%d\t%d\t%d\t%d\t\n", z, m, ok, n, steps, latest, history, request)
		}
	}
	tw.Flush()
	for _, r := range rep.Runs {
		if !r.Verified {
			fmt.Fprintf(e.stdout, "FAILED %s %s %s: %s\n", r.Size, r.Task, r.Mode, r.Error)
		}
	}
	fmt.Fprintf(e.stdout, "\n%d runs in %s; the report is %s\n", len(rep.Runs), rep.Elapsed.Round(1e9), filepath.Join(rep.Out, "report.md"))
}
