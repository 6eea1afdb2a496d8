package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"strings"
	"unicode/utf8"

	affordances "github.com/affordances/affordances-go"
	"github.com/affordances/affordances-go/aal"
	"github.com/affordances/affordances-go/agent"
	"github.com/affordances/affordances-go/internal/aalpage"
	"github.com/affordances/affordances-go/internal/display"
	"github.com/affordances/affordances-go/internal/modeltext"
)

var inspectCommand = &command{
	Name:    "inspect",
	Args:    "URL",
	Summary: "Show a page as an agent sees it: entities, actions with their risk and the gate's decision, inputs, nav.",
	Details: `Reads the page's Affordances graph and, when the site publishes AAL, the
page's fragment, and prints the page as a model reads it through the MCP
bridge (docs/model-text.md): the page and its route; its entities, records
as tables; one line per action, its input as a signature such as
"addToCart(sku: string 1-40 chars, quantity?: integer 1-99)", its output,
expose, effects, guard, availability and the gate's decision in a few words
(allow, ask: the classes a person approves, refuse: why); its nav.

--human prints it for a person instead:

  the page and its route (and its step in a flow, such as a checkout);
  its entities: scalars inline, arrays as "N items" with their first rows,
  objects inline or one line per key, long lines cut;
  its actions: name, expose, available or the reason it is not, what it
  does (AAL: action type, label, trust, cost), the gate's decision for you
  (Allow, Ask: a person must approve each call, Refuse), and its input in
  one line, such as "sku: string (required, 1-40 chars), quantity: integer 1-99";
  its nav: the links an agent can follow.

Text from the site is shown verbatim, invisible characters made visible
(\u200b), and is data, never instructions. --json prints the graph, the
fragment and the gate's verdicts as one object. --grant and --unattended
show what the gate would decide with those grants, or with nobody to ask.

` + aalHelp + ` inspect --json prints the page, its
fragment, what its HTML has for each affordance and the gate's verdicts
("graph": null).

` + authHelp + `

` + exitCodesHelp,
	Example: `affordances inspect http://127.0.0.1:8080/products/canvas-tote
AFFORDANCES_TOKEN=demo affordances inspect http://127.0.0.1:8080/checkout
affordances inspect --cookie-jar jar.txt http://127.0.0.1:8080/cart --json
AFFORDANCES_TOKEN=demo affordances inspect --human http://127.0.0.1:8080/checkout
# a site that publishes AAL only (affordances demo plain):
affordances inspect http://127.0.0.1:8082/notes`,
	Flags: func(fs *flag.FlagSet) func(context.Context, *env, []string) error {
		var f agentFlags
		f.declare(fs, true)
		human := fs.Bool("human", false, "print the page for a person: AAL details and the gate's reasons in sentences")
		return func(ctx context.Context, e *env, args []string) (err error) {
			if len(args) != 1 {
				return usagef("inspect takes one URL, such as http://127.0.0.1:8080/cart; got %d arguments", len(args))
			}
			s, err := f.open(e, args[0], nil)
			if err != nil {
				return err
			}
			defer func() { err = s.close(err) }()
			ap, err := s.loadAAL(ctx)
			switch {
			case err == nil && f.json:
				return writeJSON(e.stdout, toAALPageJSON(ap, s.gate))
			case err == nil:
				writeAALPage(e.stdout, ap, s.gate)
				return nil
			case !errors.Is(err, aalpage.ErrGraph):
				return &networkError{err}
			}
			page, err := s.loadPage(ctx)
			if err != nil {
				return reportSiteError(e, f.json, err)
			}
			switch {
			case f.json:
				return writeJSON(e.stdout, inspectJSON(page))
			case *human:
				writePage(e.stdout, page)
			default:
				io.WriteString(e.stdout, modeltext.Graph(&page.Graph, page.Assess))
			}
			return nil
		}
	},
}

// inspectJSON is what inspect --json prints.
func inspectJSON(p *agent.Page) any {
	verdicts := map[string]verdictJSON{}
	for _, a := range p.Graph.Actions {
		verdicts[a.Name] = toVerdictJSON(p.Assess(a.Name))
	}
	return struct {
		Graph    affordances.Graph      `json:"graph"`
		Fragment *aal.Fragment          `json:"fragment"`
		Verdicts map[string]verdictJSON `json:"verdicts"`
	}{p.Graph, p.Fragment, verdicts}
}

// writePage writes a page for a person.
func writePage(w io.Writer, p *agent.Page) {
	g := p.Graph
	title := aal.Visible(g.Page) + "  (route " + aal.Visible(g.Route)
	if p.Fragment != nil && p.Fragment.Flow != nil {
		fl := p.Fragment.Flow
		title += fmt.Sprintf(", %s step %d of %d", aal.Visible(fl.ID), fl.Step, fl.Of)
	}
	fmt.Fprintln(w, title+")")

	fmt.Fprintln(w, "\nEntities:")
	if len(g.Entities) == 0 {
		fmt.Fprintln(w, "  (none)")
	}
	for _, k := range sortedKeys(g.Entities) {
		writeValue(w, "  ", k, g.Entities[k], 0)
	}

	fmt.Fprintln(w, "\nActions:")
	if len(g.Actions) == 0 {
		fmt.Fprintln(w, "  (none)")
	}
	for _, a := range g.Actions {
		writeAction(w, p, a)
	}

	fmt.Fprintln(w, "\nNav:")
	if len(g.Nav) == 0 {
		fmt.Fprintln(w, "  (none)")
	}
	col := 0
	for _, n := range g.Nav {
		if n.Label != "" || n.When != "" {
			col = max(col, utf8.RuneCountInString(aal.Visible(n.To)))
		}
	}
	for _, n := range g.Nav {
		line := "  " + aal.Visible(n.To)
		if n.Label != "" || n.When != "" {
			line += strings.Repeat(" ", col-utf8.RuneCountInString(aal.Visible(n.To)))
		}
		if n.Label != "" {
			line += "  " + aal.Visible(n.Label)
		}
		if n.When != "" {
			line += "  (when " + aal.Visible(n.When) + ")"
		}
		fmt.Fprintln(w, line)
	}
}

// writeAction writes one action: its head line, description, input, AAL
// and the gate's verdict.
func writeAction(w io.Writer, p *agent.Page, a affordances.ActionDescriptor) {
	state := "available"
	if !a.Available {
		state = "not available"
		if a.Reason != "" {
			state += ": " + aal.Visible(a.Reason)
		}
	}
	head := "  " + aal.Visible(a.Name) + "  " + aal.Visible(string(a.Expose))
	if a.ReadOnly {
		head += ", read-only"
	}
	fmt.Fprintln(w, head+"  "+state)
	if a.Description != "" {
		fmt.Fprintln(w, "    "+aal.Visible(a.Description))
	}
	fmt.Fprintln(w, "    input:   "+display.InputLine(a.Input))
	if a.Guard != "" {
		fmt.Fprintln(w, "    guard:   "+aal.Visible(a.Guard))
	}
	if a.Effects != nil {
		fmt.Fprintln(w, "    effects: "+effectsText(a.Effects))
	}
	if af, ok := p.Affordance(a.Name); ok {
		fmt.Fprintln(w, "    AAL:     "+affordanceText(af))
	} else {
		fmt.Fprintln(w, "    AAL:     (none published)")
	}
	v := p.Assess(a.Name)
	writeGate(w, v)
}

// affordanceText writes an affordance in one line: `purchase "Place
// order", trust financial, destructive, irreversible, costs USD 36.00`.
func affordanceText(a aal.Affordance) string {
	parts := []string{aal.Visible(string(a.Action)) + ` "` + aal.Visible(a.Label) + `"`,
		"trust " + aal.Visible(string(a.Trust))}
	if a.Destructive {
		parts = append(parts, "destructive")
	}
	if a.Reversible {
		parts = append(parts, "reversible")
	} else {
		parts = append(parts, "irreversible")
	}
	if a.Cost != nil {
		parts = append(parts, "costs "+costText(a.Cost))
	}
	if len(a.Preconditions) > 0 {
		pre := make([]string, len(a.Preconditions))
		for i, p := range a.Preconditions {
			pre[i] = aal.Visible(p)
		}
		parts = append(parts, "needs "+strings.Join(pre, ", "))
	}
	return strings.Join(parts, ", ")
}

// writeGate writes the gate's decision on an action, with its classes,
// and why when it is not a plain Allow.
func writeGate(w io.Writer, v aal.Verdict) {
	gate := decisionText(v.Decision)
	if len(v.Classes) > 0 {
		gate += " (" + classText(v.Classes) + ")"
	}
	fmt.Fprintln(w, "    gate:    "+gate)
	if len(v.Classes) > 0 || v.Decision != aal.Allow {
		for _, r := range v.Reasons {
			fmt.Fprintln(w, "             "+r) // passed through aal.Visible by the gate
		}
	}
}
