// Package graphsize weighs a graph in o200k tokens and names its heaviest
// part, for conform's v0.size.tokens and lint (docs/protocol.md §7: about
// 2,000 tokens is a good ceiling).
package graphsize

import (
	"encoding/json"
	"fmt"
	"sort"
	"strconv"
	"sync"

	"github.com/affordances/affordances-go/internal/jsonptr"
	"github.com/tiktoken-go/tokenizer"
)

// Ceiling is the size a graph should stay under, in o200k tokens.
const Ceiling = 2000

// A Weight is a graph's size in tokens and its heaviest part.
type Weight struct {
	Tokens int
	// Part names the heaviest part: an entity ("entity 'entries'") or
	// another top-level member ("'actions'"); "" for a document that is
	// no JSON object.
	Part       string
	PartTokens int
	Pointer    string // the JSON Pointer to Part
}

// String says where the graph's weight lies: "entity 'entries' is 6,900
// of 7,670 tokens".
func (w Weight) String() string {
	if w.Part == "" {
		return Comma(w.Tokens) + " tokens"
	}
	return fmt.Sprintf("%s is %s of %s tokens", w.Part, Comma(w.PartTokens), Comma(w.Tokens))
}

// Over says whether the graph passes the ceiling.
func (w Weight) Over() bool { return w.Tokens > Ceiling }

// Weigh counts the tokens of graph, of each entity (its JSON as the graph
// has it) and of each other top-level member ("actions", "md"), and names
// the heaviest; a tie goes to the first in sorted order.
func Weigh(graph []byte) (Weight, error) {
	n, err := Count(string(graph))
	if err != nil {
		return Weight{}, err
	}
	w := Weight{Tokens: n}
	var top map[string]json.RawMessage
	if json.Unmarshal(graph, &top) != nil {
		return w, nil
	}
	var ents map[string]json.RawMessage
	json.Unmarshal(top["entities"], &ents) // none when it is no object
	delete(top, "entities")
	for _, g := range []struct {
		parts       map[string]json.RawMessage
		name, under string
	}{{ents, "entity '%s'", "/entities"}, {top, "'%s'", ""}} {
		names := make([]string, 0, len(g.parts))
		for k := range g.parts {
			names = append(names, k)
		}
		sort.Strings(names)
		for _, k := range names {
			t, err := Count(string(g.parts[k]))
			if err != nil {
				return Weight{}, err
			}
			if w.Part == "" || t > w.PartTokens {
				w.Part, w.PartTokens, w.Pointer = fmt.Sprintf(g.name, k), t, jsonptr.Append(g.under, k)
			}
		}
	}
	return w, nil
}

var o200k = sync.OnceValues(func() (tokenizer.Codec, error) { return tokenizer.Get(tokenizer.O200kBase) })

// Count returns the o200k tokens of s.
func Count(s string) (int, error) {
	c, err := o200k()
	if err != nil {
		return 0, fmt.Errorf("graphsize: tokenizer: %w", err)
	}
	return c.Count(s)
}

// Comma writes n with a comma every three digits: 7,670.
func Comma(n int) string {
	s := strconv.Itoa(n)
	neg := n < 0
	if neg {
		s = s[1:]
	}
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	if neg {
		s = "-" + s
	}
	return s
}
