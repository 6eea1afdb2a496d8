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
	Summary: "Measure what agents read to do the same tasks by screenshots, accessibility trees, Affordances graphs and WebMCP.",
	Details: `The perception bench: 30 task fixtures on the two demo sites (16 on the
shop, 14 on the task board), each performed by an oracle plan in every
mode: screenshot (a 1280x800 PNG after each UI interaction, in headless
Chromium), axtree (Playwright's ariaSnapshot in "ai" mode, same
interactions), affordances (the page's graph, one call per step and its
delta) and webmcp (the page's WebMCP tools and their results, where the
demos register them). Every task starts on a fresh demo it starts itself,
and its final state is checked against the site's database: a mode that
fails a task counts as failed, never skipped. The demos it starts place
orders and delete boards without the approval page (as demo --no-approval,
and the board's -no-approval): consent is not what it measures. The board,
a program of its own (examples/board), is built with go build at the
start: the bench runs in this repository, with the go command.

What it measures: every observation's bytes and o200k tokens (images by
Anthropic's and OpenAI's published formulas), steps and wall time, under
two context policies: the latest observation only, and the full history
an agent that keeps its transcript reads. Limits: the plans are an
oracle's, so every count is a lower bound; no model is called.

Results go to --out: report.md (method, limits, a table per site, totals,
medians, ratios, where the affordances mode's tokens go), report.json
(one entry per task and mode), chart.svg, and every observation kept under
<task>/<mode>/, so anyone can recount. Progress (task, mode, step) goes to
stderr, a summary to stdout.

The whole bench takes about 3 minutes on a 2-core machine, nearly all in
the browser modes; the affordances mode alone, a few seconds. The browser
modes need Chromium (Debian's chromium package) and, for axtree, Node.js
20 and npm: the first time, the bench installs playwright-core, at the
version the repository's package-lock.json pins (the binary holds a
copy), with npm ci into $XDG_CACHE_HOME/affordances/bench-node (~/.cache
when unset), and says so on stderr; later runs use that install.
Exit status: 0 every run verified, 1 a run failed, 2 a usage error.`,
	Example: `affordances bench --out /tmp/bench
# only the affordances mode, on the shop
affordances bench --sites shop --modes affordances --out /tmp/bench
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

// printBench prints the totals of each mode and where the report is.
func printBench(e *env, rep *bench.Report) {
	tw := tabwriter.NewWriter(e.stdout, 0, 8, 2, ' ', 0)
	fmt.Fprintln(tw, "MODE\tVERIFIED\tSTEPS\tTOKENS (LATEST)\tTOKENS (HISTORY)\t")
	for _, m := range rep.Modes {
		n, ok, steps, latest, history := 0, 0, 0, 0, 0
		for _, r := range rep.Runs {
			if r.Mode != m {
				continue
			}
			n++
			if r.Verified {
				ok++
			}
			steps += r.Steps
			latest += r.Tokens
			history += r.HistoryTokens
		}
		fmt.Fprintf(tw, "%s\t%d/%d\t%d\t%d\t%d\t\n", m, ok, n, steps, latest, history)
	}
	tw.Flush()
	for _, r := range rep.Runs {
		if !r.Verified {
			fmt.Fprintf(e.stdout, "FAILED %s %s %s: %s\n", r.Size, r.Task, r.Mode, r.Error)
		}
	}
	fmt.Fprintf(e.stdout, "\n%d runs in %s; the report is %s\n", len(rep.Runs), rep.Elapsed.Round(1e9), filepath.Join(rep.Out, "report.md"))
}
