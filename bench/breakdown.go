package bench

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
)

// A Breakdown says where the affordances mode's tokens go: each part of
// the graphs, deltas and fragments it read, counted on its own.
type Breakdown struct {
	// Total is the tokens of every observation of the mode.
	Total int
	// Parts are in a fixed order; their tokens sum to Total.
	Parts []Part
	// Actions are the actions whose descriptors the agent read, heaviest
	// first.
	Actions []ActionWeight
}

// A Part is one kind of thing the agent read.
type Part struct {
	Name   string
	Tokens int
}

// An ActionWeight is what one action's descriptors cost the agent, over
// every graph and delta that carried one.
type ActionWeight struct {
	// Action is the site and the action's name: "board search" (a
	// site's action names are unique across its routes).
	Action string
	// Times is how many descriptors of it the agent read.
	Times int
	// Descriptor and Schemas are their tokens, the schemas apart.
	Descriptor, Schemas int
}

// The parts of a breakdown, in order.
const (
	partEntities     = "graphs: entities"
	partDescriptors  = "graphs: action descriptors, without their schemas"
	partInput        = "graphs: input schemas"
	partOutput       = "graphs: output schemas"
	partNav          = "graphs: nav"
	partGraphRest    = "graphs: the rest (v, page, route, keys, punctuation)"
	partChanged      = "deltas: changed entities"
	partDeltaOutput  = "deltas: output"
	partActionsAdded = "deltas: actionsAdded (whole descriptors, schemas included)"
	partDeltaRest    = "deltas: message, error, redirect and the rest"
	partFragments    = "AAL fragments"
	partOther        = "other"
)

var partOrder = []string{partEntities, partDescriptors, partInput, partOutput, partNav, partGraphRest,
	partChanged, partDeltaOutput, partActionsAdded, partDeltaRest, partFragments, partOther}

// BreakDown reads the kept observations of the affordances mode's runs
// under dir and counts each part of them with [CountTokens]: a part is
// counted as its own JSON text, and what is left of an observation (keys,
// punctuation, small fields) is its "rest", so the parts sum to the total.
func BreakDown(dir string, runs []TaskRun) (*Breakdown, error) {
	b := &Breakdown{}
	parts := map[string]int{}
	weights := map[string]*ActionWeight{}
	for _, run := range runs {
		if run.Mode != "affordances" {
			continue
		}
		for _, o := range run.Observations {
			body, err := os.ReadFile(filepath.Join(dir, filepath.FromSlash(o.File)))
			if err != nil {
				return nil, fmt.Errorf("bench: breakdown: %w", err)
			}
			if err := breakDown(run.Site, o.Kind, body, parts, weights); err != nil {
				return nil, fmt.Errorf("bench: breakdown of %s: %w", o.File, err)
			}
			b.Total += o.Tokens
		}
	}
	for _, name := range partOrder {
		if n, ok := parts[name]; ok {
			b.Parts = append(b.Parts, Part{Name: name, Tokens: n})
		}
	}
	for _, w := range weights {
		b.Actions = append(b.Actions, *w)
	}
	slices.SortFunc(b.Actions, func(x, y ActionWeight) int {
		if d := (y.Descriptor + y.Schemas) - (x.Descriptor + x.Schemas); d != 0 {
			return d
		}
		return strings.Compare(x.Action, y.Action)
	})
	return b, nil
}

// breakDown adds the parts of one observation of kind to parts, and its
// descriptors to weights.
func breakDown(site, kind string, body []byte, parts map[string]int, weights map[string]*ActionWeight) error {
	total, err := CountTokens(string(body))
	if err != nil {
		return err
	}
	var doc map[string]json.RawMessage
	if kind == "fragment" || json.Unmarshal(body, &doc) != nil {
		name := partOther
		if kind == "fragment" {
			name = partFragments
		}
		parts[name] += total
		return nil
	}
	counted := 0
	add := func(part string, raw []byte) error {
		n, err := CountTokens(string(raw))
		if err != nil {
			return err
		}
		parts[part] += n
		counted += n
		return nil
	}
	descriptors := func(raw json.RawMessage, inGraph bool) error {
		var actions []map[string]json.RawMessage
		if err := json.Unmarshal(raw, &actions); err != nil {
			return err
		}
		for _, a := range actions {
			var name string
			json.Unmarshal(a["name"], &name)
			key := site + " " + name
			w := weights[key]
			if w == nil {
				w = &ActionWeight{Action: key}
				weights[key] = w
			}
			w.Times++
			schemas := 0
			for _, s := range []string{"input", "output"} {
				if a[s] == nil {
					continue
				}
				n, err := CountTokens(string(a[s]))
				if err != nil {
					return err
				}
				schemas += n
				if inGraph {
					part := partInput
					if s == "output" {
						part = partOutput
					}
					parts[part] += n
					counted += n
				}
				delete(a, s)
			}
			rest, err := json.Marshal(a)
			if err != nil {
				return err
			}
			n, err := CountTokens(string(rest))
			if err != nil {
				return err
			}
			if inGraph {
				parts[partDescriptors] += n
				counted += n
			}
			w.Descriptor += n
			w.Schemas += schemas
		}
		if !inGraph {
			return add(partActionsAdded, raw)
		}
		return nil
	}
	if kind == "graph" {
		if err := add(partEntities, doc["entities"]); err != nil {
			return err
		}
		if doc["actions"] != nil {
			if err := descriptors(doc["actions"], true); err != nil {
				return err
			}
		}
		if doc["nav"] != nil {
			if err := add(partNav, doc["nav"]); err != nil {
				return err
			}
		}
		parts[partGraphRest] += total - counted
		return nil
	}
	// A delta (kind "delta"), or anything else shaped like one.
	for part, key := range map[string]string{partChanged: "changed", partDeltaOutput: "output"} {
		if doc[key] != nil {
			if err := add(part, doc[key]); err != nil {
				return err
			}
		}
	}
	if doc["actionsAdded"] != nil {
		if err := descriptors(doc["actionsAdded"], false); err != nil {
			return err
		}
	}
	parts[partDeltaRest] += total - counted
	return nil
}

// writeBreakdown writes the report's "Where tokens go" section.
func (r *Report) writeBreakdown(w io.Writer, b *Breakdown) {
	if b.Total == 0 {
		return
	}
	fmt.Fprintf(w, "## Where tokens go\n\n")
	fmt.Fprintf(w, "The affordances mode read %s tokens over its %d runs. Each part below is counted as its own JSON text with the same tokenizer; what is left of an observation (keys, punctuation, small fields) is its *rest*, so the parts add up to the total.\n\n",
		thousands(b.Total), len(slices.DeleteFunc(slices.Clone(r.Runs), func(t TaskRun) bool { return t.Mode != "affordances" })))
	fmt.Fprintf(w, "| Part | Tokens | Share |\n| --- | ---: | ---: |\n")
	sorted := slices.Clone(b.Parts)
	slices.SortStableFunc(sorted, func(x, y Part) int { return y.Tokens - x.Tokens })
	for _, p := range b.Parts {
		fmt.Fprintf(w, "| %s | %s | %.0f%% |\n", p.Name, thousands(p.Tokens), 100*float64(p.Tokens)/float64(b.Total))
	}
	schemas := 0
	for _, p := range b.Parts {
		if p.Name == partInput || p.Name == partOutput {
			schemas += p.Tokens
		}
	}
	fmt.Fprintf(w, "\nThe largest: ")
	for i, p := range sorted[:min(3, len(sorted))] {
		if i > 0 {
			fmt.Fprint(w, "; ")
		}
		fmt.Fprintf(w, "%s (%.0f%%)", p.Name, 100*float64(p.Tokens)/float64(b.Total))
	}
	fmt.Fprintf(w, ". Input and output schemas in graphs alone are %.0f%%.\n\n", 100*float64(schemas)/float64(b.Total))
	if len(b.Actions) > 0 {
		fmt.Fprintf(w, "The heaviest action descriptors the agent read, in graphs and in deltas' actionsAdded:\n\n")
		fmt.Fprintf(w, "| Action | Times read | Descriptor tokens | Schema tokens |\n| --- | ---: | ---: | ---: |\n")
		for _, a := range b.Actions[:min(8, len(b.Actions))] {
			fmt.Fprintf(w, "| `%s` | %d | %s | %s |\n", a.Action, a.Times, thousands(a.Descriptor), thousands(a.Schemas))
		}
		fmt.Fprintln(w)
	}
}
