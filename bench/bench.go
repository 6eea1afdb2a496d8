// Package bench is the perception bench, which measures what AAL 0.1.1
// only modelled (docs/protocol.md §28): the same task fixtures performed on
// the demo sites by agents that perceive pages in different ways, each
// observation kept and counted. It is for those who measure:
// `affordances bench` runs it and docs/bench is its report; it has no
// promise of a stable API.
//
// A [Task] is a goal in plain words with an oracle plan in protocol terms
// (the actions to call, in order, with their input) and a check of the
// final state against the site's own database. A [Mode] performs the plan
// as one kind of agent would: through this repository's MCP bridge (what a
// model reads from us), clicking through screenshots, reading
// accessibility snapshots, through the Playwright MCP server, calling the
// Affordances graph on the wire, or using the page's WebMCP tools; each
// task at two sizes of seed ([Sizes]). Every observation goes through a
// [Recorder], which writes it to disk and counts its tokens, and the tool
// definitions a model is given on every request are counted once a run. The plan is an oracle's, so
// every mode's count is a lower bound on what an agent pays; no model is
// called.
package bench

import (
	"context"
	"database/sql"
	"fmt"
	"maps"
	"net/http"
)

// A Task is one fixture of the bench.
type Task struct {
	// ID is short and stable: "shop-checkout".
	ID string
	// Site is the demo the task runs on: "shop" or "board".
	Site string
	// Goal says what a person asked for, in plain words.
	Goal string
	// Start is the page the agent starts on.
	Start string
	// As is the email of the seeded user who performs the task, signed in
	// with a cookie session before the task starts; "" for nobody.
	As string
	// Plan is the oracle plan: the calls that reach the goal, in order.
	Plan []Step
	// Check verifies the final state against the site's database after a
	// mode ran the task: nil when the goal was reached (or, for a goal
	// that must be refused or wait for a person, when nothing changed).
	Check func(ctx context.Context, d *Demo) error
}

// A Step is one call of a task's plan.
type Step struct {
	// Page is the concrete page the action is on ("/products/canvas-tote").
	Page string
	// Action is the Affordances action's name.
	Action string
	// Input is the call's input; for a person, the form's fields.
	Input map[string]any
	// IDs names the fields of Input that are the id of a row an earlier
	// step made (a review, a task), each with the query that finds it in
	// the demo's database: the seed's size moves it, as a larger seed
	// takes more ids first. Input holds its value at demo size; a mode
	// reads the step's input with [Step.InputOn].
	IDs map[string]string
	// Outcome is what the step comes to.
	Outcome Outcome
}

// InputOn returns the step's input on the demo d as it is when the step
// runs: Input, with each field of IDs set to the id its query finds.
func (s Step) InputOn(ctx context.Context, d *Demo) (map[string]any, error) {
	if len(s.IDs) == 0 {
		return s.Input, nil
	}
	in := maps.Clone(s.Input)
	for field, query := range s.IDs {
		var id int64
		if err := d.DB.QueryRowContext(ctx, query).Scan(&id); err != nil {
			return nil, fmt.Errorf("bench: the id of %s: %w", field, err)
		}
		in[field] = id
	}
	return in, nil
}

// eachStep runs step on each step of t's plan in turn, its input as the
// demo d has it when the step runs ([Step.InputOn]), and says which step
// failed.
func eachStep(ctx context.Context, t *Task, d *Demo, step func(Step) error) error {
	for i, s := range t.Plan {
		in, err := s.InputOn(ctx, d)
		if err == nil {
			s.Input = in
			err = step(s)
		}
		if err != nil {
			return fmt.Errorf("step %d (%s on %s): %w", i+1, s.Action, s.Page, err)
		}
	}
	return nil
}

// An Outcome is what a step of a plan comes to.
type Outcome string

// The outcomes of a step.
const (
	// Done: the action runs.
	Done Outcome = ""
	// Confirmed: a confirm action the person confirms. An API agent calls
	// it, gets the summary, and calls again with confirm: true; a browser
	// agent clicks its element, then the confirmation page's button. The
	// bench's demos take confirm: true alone (see [StartDemo]): the person's
	// approval page, which an agent does not read, is not measured.
	Confirmed Outcome = "confirmed"
	// NeedsPerson: the site's confirmation or the agent's gate asks a
	// person, who does not approve: the agent stops there, nothing runs.
	NeedsPerson Outcome = "needs-person"
	// Refused: the site refuses the action (unavailable, with its reason):
	// nothing runs.
	Refused Outcome = "refused"
)

// A Size is how much data a demo is seeded with.
type Size string

// The sizes of a demo's seed.
const (
	// DemoSize is the demo as `affordances demo` seeds it: a few of each
	// thing, enough to try every action.
	DemoSize Size = "demo"
	// Realistic is a seed of the size a small real site has: a shop with
	// about 200 products and their reviews, boards with about 120 tasks.
	// The pages are the same pages, paginated as a person would design
	// them.
	Realistic Size = "realistic"
)

// Sizes returns the sizes the bench runs tasks at, in report order, in a
// new slice.
func Sizes() []Size { return []Size{DemoSize, Realistic} }

// A Demo is one fresh demo site, started for one task.
type Demo struct {
	// Site is "shop" or "board".
	Site string
	// Size is the size of its seed.
	Size Size
	// URL is its base URL, http://127.0.0.1:PORT.
	URL string
	// DB reads its database, for [Task.Check].
	DB *sql.DB
	// Session is the cookie session of [Task.As], nil for nobody.
	Session *http.Cookie
	// seeded reads a copy of the database as the demo started, seeded
	// and before anyone signed in: what a check compares DB with.
	seeded *sql.DB
}

// A Mode performs a task's plan as one kind of agent perceives pages.
type Mode interface {
	// Name is the mode's name in reports: "mcp", "screenshot", "axtree",
	// "playwright-mcp", "playwright-mcp-lean", "affordances", "webmcp",
	// "playwright-mcp-webmcp".
	Name() string
	// Run performs t's plan on d, starting on t.Start with d.Session,
	// and records every observation the agent would read with rec. It
	// returns an error when the plan could not be carried out (an element
	// not found, a step that came to another outcome).
	Run(ctx context.Context, t *Task, d *Demo, rec *Recorder) error
}
