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
	// RepeatedSchemas are the tokens of input and output schemas in graphs
	// identical to one the agent had already read in the same run.
	RepeatedSchemas int
	// ResentDescriptors are the tokens of actionsAdded entries that
	// re-send a descriptor the agent had already read in the same run,
	// changed only in available and reason.
	ResentDescriptors int
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

// sources group the parts as the issue names the sources of tokens.
var sources = []struct {
	name  string
	parts []string
}{
	{"input and output schemas (in graphs)", []string{partInput, partOutput}},
	{"action descriptors without their schemas (in graphs)", []string{partDescriptors}},
	{"entities (in graphs)", []string{partEntities}},
	{"deltas (every part)", []string{partChanged, partDeltaOutput, partActionsAdded, partDeltaRest}},
	{"nav (in graphs)", []string{partNav}},
	{"the graphs' framing", []string{partGraphRest}},
	{"AAL fragments", []string{partFragments}},
	{"other", []string{partOther}},
}

// BreakDown reads the kept observations of the affordances mode's runs
// under dir and counts each part of them with [CountTokens]: a part is
// counted as its own JSON text, and what is left of an observation (keys,
// punctuation, small fields) is its "rest", so the parts sum to the total.
func BreakDown(dir string, runs []TaskRun) (*Breakdown, error) {
	k := &breaker{b: &Breakdown{}, parts: map[string]int{}, weights: map[string]*ActionWeight{}}
	for _, run := range runs {
		if run.Mode != "affordances" {
			continue
		}
		k.site, k.schemas, k.descriptors = run.Site, map[string]bool{}, map[string]string{}
		for _, o := range run.Observations {
			body, err := os.ReadFile(filepath.Join(dir, filepath.FromSlash(o.File)))
			if err != nil {
				return nil, fmt.Errorf("bench: breakdown: %w", err)
			}
			if err := k.observation(o.Kind, body); err != nil {
				return nil, fmt.Errorf("bench: breakdown of %s: %w", o.File, err)
			}
			k.b.Total += o.Tokens
		}
	}
	b := k.b
	for _, name := range partOrder {
		if n, ok := k.parts[name]; ok {
			b.Parts = append(b.Parts, Part{Name: name, Tokens: n})
		}
	}
	for _, w := range k.weights {
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

// A breaker breaks observations down, run by run.
type breaker struct {
	b       *Breakdown
	parts   map[string]int
	weights map[string]*ActionWeight
	// Of the current run: its site, the schemas read (by their text), and
	// each action's descriptor read, without available and reason.
	site        string
	schemas     map[string]bool
	descriptors map[string]string
}

func (k *breaker) count(part string, raw []byte) (int, error) {
	n, err := CountTokens(string(raw))
	if err != nil {
		return 0, err
	}
	k.parts[part] += n
	return n, nil
}

// observation adds the parts of one observation of kind.
func (k *breaker) observation(kind string, body []byte) error {
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
		k.parts[name] += total
		return nil
	}
	counted := 0
	add := func(part, key string) error {
		if doc[key] == nil {
			return nil
		}
		n, err := k.count(part, doc[key])
		counted += n
		return err
	}
	if kind == "graph" {
		for part, key := range map[string]string{partEntities: "entities", partNav: "nav"} {
			if err := add(part, key); err != nil {
				return err
			}
		}
		n, err := k.descriptorsIn(doc["actions"], true)
		if err != nil {
			return err
		}
		k.parts[partGraphRest] += total - counted - n
		return nil
	}
	// A delta, or anything else shaped like one.
	for part, key := range map[string]string{partChanged: "changed", partDeltaOutput: "output"} {
		if err := add(part, key); err != nil {
			return err
		}
	}
	n, err := k.descriptorsIn(doc["actionsAdded"], false)
	if err != nil {
		return err
	}
	k.parts[partDeltaRest] += total - counted - n
	return nil
}

// descriptorsIn counts the action descriptors of a graph's actions (their
// schemas apart) or of a delta's actionsAdded (whole), and returns the
// tokens it added to the parts.
func (k *breaker) descriptorsIn(raw json.RawMessage, inGraph bool) (int, error) {
	if raw == nil {
		return 0, nil
	}
	var actions []map[string]json.RawMessage
	if err := json.Unmarshal(raw, &actions); err != nil {
		return 0, err
	}
	added := 0
	for _, a := range actions {
		whole, err := json.Marshal(a)
		if err != nil {
			return 0, err
		}
		wholeTokens, err := CountTokens(string(whole))
		if err != nil {
			return 0, err
		}
		var name string
		json.Unmarshal(a["name"], &name)
		w := k.weights[k.site+" "+name]
		if w == nil {
			w = &ActionWeight{Action: k.site + " " + name}
			k.weights[k.site+" "+name] = w
		}
		w.Times++
		schemas := 0
		for _, s := range []string{"input", "output"} {
			if a[s] == nil {
				continue
			}
			n, err := CountTokens(string(a[s]))
			if err != nil {
				return 0, err
			}
			schemas += n
			if inGraph {
				part := partInput
				if s == "output" {
					part = partOutput
				}
				k.parts[part] += n
				added += n
				if k.schemas[string(a[s])] {
					k.b.RepeatedSchemas += n
				}
			}
			k.schemas[string(a[s])] = true
		}
		bare := without(a, "input", "output")
		rest, err := json.Marshal(bare)
		if err != nil {
			return 0, err
		}
		n, err := CountTokens(string(rest))
		if err != nil {
			return 0, err
		}
		if inGraph {
			k.parts[partDescriptors] += n
			added += n
		}
		w.Descriptor += n
		w.Schemas += schemas
		same, _ := json.Marshal(without(a, "available", "reason"))
		if !inGraph && k.descriptors[name] == string(same) {
			k.b.ResentDescriptors += wholeTokens
		}
		k.descriptors[name] = string(same)
	}
	if !inGraph {
		n, err := k.count(partActionsAdded, raw)
		return n, err
	}
	return added, nil
}

// without returns a copy of m without the keys.
func without(m map[string]json.RawMessage, keys ...string) map[string]json.RawMessage {
	out := make(map[string]json.RawMessage, len(m))
	for k, v := range m {
		if !slices.Contains(keys, k) {
			out[k] = v
		}
	}
	return out
}

// writeBreakdown writes the report's "Where tokens go" section.
func (r *Report) writeBreakdown(w io.Writer, b *Breakdown) {
	if b.Total == 0 {
		return
	}
	share := func(n int) string { return fmt.Sprintf("%.0f%%", 100*float64(n)/float64(b.Total)) }
	runs := 0
	for _, t := range r.Runs {
		if t.Mode == "affordances" {
			runs++
		}
	}
	parts := map[string]int{}
	for _, p := range b.Parts {
		parts[p.Name] = p.Tokens
	}
	type source struct {
		name   string
		tokens int
	}
	var ss []source
	for _, s := range sources {
		n, any := 0, false
		for _, p := range s.parts {
			v, ok := parts[p]
			n, any = n+v, any || ok
		}
		if any {
			ss = append(ss, source{s.name, n})
		}
	}
	slices.SortStableFunc(ss, func(x, y source) int { return y.tokens - x.tokens })

	fmt.Fprintf(w, "## Where tokens go\n\n")
	fmt.Fprintf(w, "The affordances mode read %s tokens over its %d runs. Each part is counted as its own JSON text with the same tokenizer; what is left of an observation (keys, punctuation, small fields) is its *rest* (its *framing*, for a graph), so the parts add up to the total.\n\n",
		thousands(b.Total), runs)
	fmt.Fprintf(w, "| Source | Tokens | Share |\n| --- | ---: | ---: |\n")
	for _, s := range ss {
		fmt.Fprintf(w, "| %s | %s | %s |\n", s.name, thousands(s.tokens), share(s.tokens))
	}
	fmt.Fprintf(w, "\nThe three largest: ")
	for i, s := range ss[:min(3, len(ss))] {
		if i > 0 {
			fmt.Fprint(w, "; ")
		}
		fmt.Fprintf(w, "%s, %s", s.name, share(s.tokens))
	}
	fmt.Fprintf(w, ". Of the schemas, %s tokens repeat one the agent had already read in the same run; of the deltas' actionsAdded, %s re-send a descriptor the agent had already read, schemas and all, only to flip its availability.\n\n",
		thousands(b.RepeatedSchemas), thousands(b.ResentDescriptors))
	fmt.Fprintf(w, "In detail:\n\n| Part | Tokens | Share |\n| --- | ---: | ---: |\n")
	for _, p := range b.Parts {
		fmt.Fprintf(w, "| %s | %s | %s |\n", p.Name, thousands(p.Tokens), share(p.Tokens))
	}
	fmt.Fprintln(w)
	if len(b.Actions) > 0 {
		fmt.Fprintf(w, "The heaviest action descriptors the agent read, in graphs and in deltas' actionsAdded (descriptor tokens without the schemas):\n\n")
		fmt.Fprintf(w, "| Action | Times read | Descriptor tokens | Schema tokens |\n| --- | ---: | ---: | ---: |\n")
		for _, a := range b.Actions[:min(8, len(b.Actions))] {
			fmt.Fprintf(w, "| `%s` | %d | %s | %s |\n", a.Action, a.Times, thousands(a.Descriptor), thousands(a.Schemas))
		}
		fmt.Fprintln(w)
	}
}
