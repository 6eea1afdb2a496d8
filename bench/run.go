package bench

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/affordances/affordances-go/internal/browser"
)

// Options configures [Run]. The zero value of every field is a sound
// default, but Out, which is required.
type Options struct {
	// Sites are the demo sites to run tasks on; empty: all of [Sites].
	Sites []string
	// Tasks are the ids of the tasks to run; empty: every task of Sites.
	Tasks []string
	// Modes are the names of the modes to run, in [ModeNames]; empty:
	// all of them.
	Modes []string
	// Sizes are the sizes of seed each task runs at; empty: all of
	// [Sizes].
	Sizes []Size
	// Out is the directory the results go to: report.json, report.md,
	// chart.svg, and each run's observations under <task>/<mode>/.
	Out string
	// Progress receives a line per observation and per run; nil: none.
	Progress io.Writer
	// RunTimeout bounds one task in one mode; zero: 3 minutes.
	RunTimeout time.Duration
	// AXTree configures the axtree mode; nil: its defaults. Its Progress,
	// when nil, is Progress.
	AXTree *AXTreeOptions
}

// A TaskRun is one task performed in one mode: an element of
// report.json.
type TaskRun struct {
	Task string `json:"task"`
	Site string `json:"site"`
	Mode string `json:"mode"`
	// Size is the size of the demo's seed: "demo" or "realistic".
	Size Size `json:"size"`
	// Verified says the mode carried out the plan and the task's check
	// of the site's database passed.
	Verified bool `json:"verified"`
	// Error says why not, when it is not verified.
	Error string `json:"error,omitempty"`
	// Steps is how many UI interactions or calls the mode made: the
	// highest step of its observations.
	Steps int `json:"steps"`
	// Tokens is the sum of the observations' tokens: what an agent that
	// keeps only the latest observation reads over the task.
	Tokens int `json:"tokens"`
	// HistoryTokens is what an agent that keeps its whole transcript
	// reads: at each step, everything observed so far, summed over steps.
	HistoryTokens int `json:"historyTokens"`
	// ToolTokens are the tokens of the tool definitions the model is
	// given on every request: an MCP server's tools; zero for a mode
	// whose agent is given none.
	ToolTokens int `json:"toolTokens"`
	// ToolsFrom, when the tool definitions changed during the run (the
	// playwright-mcp-webmcp mode's, which hold the page's WebMCP tools),
	// are their tokens from each step on; ToolTokens is then the most.
	ToolsFrom []ToolsFrom `json:"toolsFrom,omitempty"`
	// RequestTokens is what a model pays over its requests: at each step,
	// one request with the tool definitions and the transcript so far
	// (the HistoryTokens of that step).
	RequestTokens int `json:"requestTokens"`
	// TokensOpenAI and HistoryTokensOpenAI count screenshots by OpenAI's
	// formula instead of Anthropic's; zero for a mode without images.
	TokensOpenAI        int `json:"tokensOpenAI,omitempty"`
	HistoryTokensOpenAI int `json:"historyTokensOpenAI,omitempty"`
	// Bytes is the sum of the observations' sizes.
	Bytes int `json:"bytes"`
	// Millis is the run's wall time, the demo's start included.
	Millis int64 `json:"ms"`
	// Observations are what the agent read, in order.
	Observations []Observation `json:"observations"`
}

// A Report is the outcome of [Run].
type Report struct {
	// Runs are in the order they ran: size by size, task by task, each in
	// every mode.
	Runs []TaskRun
	// Tasks are the tasks that ran, Modes the modes' names and Sizes the
	// sizes, in order.
	Tasks []*Task
	Modes []string
	Sizes []Size
	// Browser is the Chromium the browser modes ran with, as it names
	// itself and where it is ("Chromium 156.0.8078.114 ...
	// (/usr/bin/chromium)"); "" when there was none.
	Browser string
	// Started and Elapsed time the whole run.
	Started time.Time
	Elapsed time.Duration
	// Out is where the results are.
	Out string
}

// A modeStarter starts a mode once for a whole run of the bench (a
// browser mode starts its Chromium there) and returns what stops it.
type modeStarter func(ctx context.Context, o *Options) (Mode, func() error, error)

// modes are the bench's modes by name, in report order. A mode whose
// starter is nil is not built yet.
var modes = []struct {
	name  string
	start modeStarter
}{
	{"mcp", startMCP},
	{"screenshot", startScreenshot},
	{"axtree", startAxtree},
	{"playwright-mcp", startPlaywrightMCP},
	{"playwright-mcp-lean", startPlaywrightMCPLean},
	{"affordances", startAffordances},
	{"webmcp", startWebMCP},
	{"playwright-mcp-webmcp", startPlaywrightMCPWebMCP},
}

// ModeNames returns the names of the modes the bench can run, in report
// order.
func ModeNames() []string {
	var names []string
	for _, m := range modes {
		if m.start != nil {
			names = append(names, m.name)
		}
	}
	return names
}

// Run performs each selected task in each selected mode, each run on a
// fresh demo, checks the site's database after it, and writes the results
// under opts.Out: the report (report.json, report.md, chart.svg) and
// every observation. A run that fails, or whose check fails, counts as not
// verified; Run's error is for what stops the whole bench (a bad option,
// a directory it cannot write). A mode that cannot start (no Chromium)
// fails every task it was to run.
func Run(ctx context.Context, opts *Options) (*Report, error) {
	var o Options
	if opts != nil {
		o = *opts
	}
	if o.Out == "" {
		return nil, errors.New("bench: Options.Out names no directory")
	}
	if o.RunTimeout == 0 {
		o.RunTimeout = 3 * time.Minute
	}
	progress := o.Progress
	if progress == nil {
		progress = io.Discard
	}
	tasks, err := selectTasks(o.Sites, o.Tasks)
	if err != nil {
		return nil, err
	}
	names := o.Modes
	if len(names) == 0 {
		names = ModeNames()
	}
	for _, n := range names {
		if !slices.Contains(ModeNames(), n) {
			return nil, fmt.Errorf("bench: no mode %q (the modes are %s)", n, strings.Join(ModeNames(), ", "))
		}
	}
	for _, z := range o.Sizes {
		if !slices.Contains(Sizes(), z) {
			return nil, fmt.Errorf("bench: no size %q (the sizes are demo, realistic)", z)
		}
	}
	if err := os.MkdirAll(o.Out, 0o755); err != nil {
		return nil, fmt.Errorf("bench: %w", err)
	}
	rep := &Report{Tasks: tasks, Started: time.Now(), Out: o.Out}
	for _, z := range Sizes() {
		if len(o.Sizes) == 0 || slices.Contains(o.Sizes, z) {
			rep.Sizes = append(rep.Sizes, z)
		}
	}
	if exe, err := browser.Executable(""); err == nil {
		if v, err := browser.Version(ctx, exe); err == nil {
			rep.Browser = v + " (" + exe + ")"
		}
	}
	for _, m := range modes {
		if slices.Contains(names, m.name) {
			rep.Modes = append(rep.Modes, m.name)
		}
	}
	started := map[string]Mode{}
	failed := map[string]error{}
	var stops []func() error
	defer func() {
		for _, stop := range stops {
			stop()
		}
	}()
	for _, name := range rep.Modes {
		for _, m := range modes {
			if m.name != name {
				continue
			}
			fmt.Fprintf(progress, "starting the %s mode\n", name)
			mode, stop, err := m.start(ctx, &o)
			if err != nil {
				failed[name] = fmt.Errorf("the %s mode did not start: %w", name, err)
				fmt.Fprintf(progress, "%v\n", failed[name])
				continue
			}
			started[name] = mode
			stops = append(stops, stop)
		}
	}
	for _, z := range rep.Sizes {
		for _, t := range tasks {
			for _, name := range rep.Modes {
				if err := ctx.Err(); err != nil {
					return nil, err
				}
				run, err := runOne(ctx, &o, t, z, name, started[name], failed[name], progress)
				if err != nil {
					return nil, err
				}
				rep.Runs = append(rep.Runs, run)
			}
		}
	}
	rep.Elapsed = time.Since(rep.Started)
	if err := rep.Write(o.Out); err != nil {
		return rep, err
	}
	return rep, nil
}

// runOne runs t in the mode named name (nil when it did not start, with
// why) on a fresh demo of size and checks the result.
func runOne(ctx context.Context, o *Options, t *Task, size Size, name string, mode Mode, notStarted error, progress io.Writer) (TaskRun, error) {
	run := TaskRun{Task: t.ID, Site: t.Site, Mode: name, Size: size, Observations: []Observation{}}
	rel := filepath.ToSlash(filepath.Join(string(size), t.ID, name))
	if err := os.RemoveAll(filepath.Join(o.Out, rel)); err != nil {
		return run, fmt.Errorf("bench: %w", err)
	}
	rec, err := NewRecorder(o.Out, rel)
	if err != nil {
		return run, err
	}
	rec.onRecord = func(ob Observation) {
		fmt.Fprintf(progress, "%s %s %s: step %d, %s: %s (%d tokens)\n", size, t.ID, name, ob.Step, ob.Kind, ob.What, ob.Tokens)
	}
	begin := time.Now()
	err = notStarted
	if err == nil {
		err = perform(ctx, o.RunTimeout, t, size, mode, rec)
	}
	run.Millis = time.Since(begin).Milliseconds()
	run.Observations = rec.Observations()
	run.ToolTokens = rec.ToolTokens()
	if from := rec.ToolTokensFrom(); len(from) > 1 {
		run.ToolsFrom = from
	}
	run.count()
	if err != nil {
		run.Error = err.Error()
		fmt.Fprintf(progress, "%s %s %s: FAILED: %v\n", size, t.ID, name, err)
	} else {
		run.Verified = true
		fmt.Fprintf(progress, "%s %s %s: verified, %d steps, %d tokens, %.1f s\n", size, t.ID, name, run.Steps, run.Tokens, float64(run.Millis)/1000)
	}
	return run, nil
}

// perform starts a fresh demo of size, runs t in mode on it and checks
// the database.
func perform(ctx context.Context, timeout time.Duration, t *Task, size Size, mode Mode, rec *Recorder) error {
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	d, stop, err := StartDemo(ctx, t.Site, size, t.As)
	if err != nil {
		return err
	}
	defer stop()
	if err := mode.Run(ctx, t, d, rec); err != nil {
		return err
	}
	if err := t.Check(ctx, d); err != nil {
		return fmt.Errorf("check: %w", err)
	}
	return nil
}

// count sums the run's observations under the three context policies.
func (r *TaskRun) count() {
	r.Steps, r.Tokens, r.Bytes, r.TokensOpenAI = 0, 0, 0, 0
	images := false
	for _, o := range r.Observations {
		r.Steps = max(r.Steps, o.Step)
		r.Tokens += o.Tokens
		r.Bytes += o.Bytes
		images = images || o.TokensOpenAI > 0
	}
	r.HistoryTokens = History(r.Observations, func(o Observation) int { return o.Tokens })
	r.RequestTokens = r.HistoryTokens + r.requestToolTokens()
	if images {
		openAI := func(o Observation) int {
			if o.TokensOpenAI > 0 {
				return o.TokensOpenAI
			}
			return o.Tokens
		}
		for _, o := range r.Observations {
			r.TokensOpenAI += openAI(o)
		}
		r.HistoryTokensOpenAI = History(r.Observations, openAI)
	}
}

// History is what an agent that keeps its whole transcript reads over
// observations: at each step (each distinct Step, in order) the tokens of
// every observation up to and including that step, summed over the steps.
// An agent that keeps only the latest observation reads their plain sum.
func History(obs []Observation, tokens func(Observation) int) int {
	total := 0
	for _, s := range steps(obs) {
		for _, o := range obs {
			if o.Step <= s {
				total += tokens(o)
			}
		}
	}
	return total
}

// requestToolTokens is the tokens of the tool definitions over the run's
// requests: one a step, each with the definitions the model was given at
// that step.
func (r *TaskRun) requestToolTokens() int {
	if len(r.ToolsFrom) == 0 {
		return requests(r.Observations) * r.ToolTokens
	}
	total := 0
	for _, s := range steps(r.Observations) {
		n := r.ToolsFrom[0].Tokens
		for _, t := range r.ToolsFrom {
			if t.Step <= s {
				n = t.Tokens
			}
		}
		total += n
	}
	return total
}

// requests is how many model requests a run's observations take: one at
// each step, after reading what that step brought.
func requests(obs []Observation) int { return len(steps(obs)) }

// steps returns the distinct steps of obs, in order.
func steps(obs []Observation) []int {
	var s []int
	for _, o := range obs {
		if !slices.Contains(s, o.Step) {
			s = append(s, o.Step)
		}
	}
	slices.Sort(s)
	return s
}

// selectTasks returns the tasks of sites (all when empty) whose ids are
// in ids (all when empty); an unknown site or id is an error.
func selectTasks(sites, ids []string) ([]*Task, error) {
	for _, s := range sites {
		if !slices.Contains(Sites(), s) {
			return nil, fmt.Errorf("bench: no site %q (the sites are %s)", s, strings.Join(Sites(), ", "))
		}
	}
	all := Tasks()
	for _, id := range ids {
		if !slices.ContainsFunc(all, func(t *Task) bool { return t.ID == id }) {
			return nil, fmt.Errorf("bench: no task %q", id)
		}
	}
	var out []*Task
	for _, t := range all {
		if (len(sites) == 0 || slices.Contains(sites, t.Site)) && (len(ids) == 0 || slices.Contains(ids, t.ID)) {
			out = append(out, t)
		}
	}
	if len(out) == 0 {
		return nil, errors.New("bench: no task is on those sites with those ids")
	}
	return out, nil
}
