package modeltext

import (
	"strconv"
	"strings"

	affordances "github.com/affordances/affordances-go"
	"github.com/affordances/affordances-go/aal"
)

// A Budget bounds the text of a page ([GraphWithin]).
type Budget struct {
	// Tokens is the most the page's text may take; 0 or less: no bound.
	Tokens int
	// Count returns the tokens of a text.
	Count func(string) int
	// Whole names a table shown whole whatever it takes (as the text
	// names it: "tasks", "cart.items"); "" for none.
	Whole string
}

// minRows is the fewest rows a table cut for a budget shows.
const minRows = 3

// GraphWithin writes g as [Graph] does, within b: when that text takes
// more than b.Tokens, its largest tables (an entity's records, or an
// entity's field's) show their first rows, never fewer than three, until
// it fits or no table can give more, and each says how many rows it left
// out and the ways to them:
//
//	NAME (N, first K shown): COL | ...
//	  CELL | ...
//	  … M more not shown: show NAME[; pages: TO, ...][; find: ACTION, ...]
//
// where pages are the nav's links to this page with another query (its
// other pages) and find the available read-only actions that take an
// input (a search, a filter). It returns the text and the names of the
// tables it cut. Nothing is cut silently: every table cut says so.
func GraphWithin(g *affordances.Graph, verdict func(action string) aal.Verdict, b Budget) (string, []string) {
	text := Graph(g, verdict)
	if b.Tokens <= 0 || b.Count == nil || b.Count(text) <= b.Tokens {
		return text, nil
	}
	c := &cuts{limit: map[string]int{}, size: map[string]int{}, ways: waysOf(g)}
	n, _ := normal(g.Entities).(map[string]any)
	for name, v := range tablesOf(n) {
		if name != b.Whole {
			c.size[name] = len(v)
		}
	}
	for range 8 { // each round cuts closer; a few suffice
		over := b.Count(text) - b.Tokens
		if over <= 0 {
			break
		}
		name := c.largest()
		if name == "" {
			break // every table is down to its fewest rows
		}
		shown := c.rows(name, c.size[name])
		perRow := max(1, b.Count(tableRows(text, name))/shown)
		c.limit[name] = max(minRows, shown-(over+perRow-1)/perRow)
		text = graph(g, verdict, c)
	}
	var cut []string
	for _, name := range sortedKeys(c.limit) {
		if c.limit[name] < c.size[name] {
			cut = append(cut, name)
		}
	}
	return text, cut
}

// cuts says how many rows of each table a page's text shows, and the
// ways to the rest; a nil *cuts shows every row.
type cuts struct {
	limit map[string]int // rows shown, by table name, when cut
	size  map[string]int // rows, by table name, of the tables that may be cut
	ways  string         // "; pages: ...; find: ..."
}

// rows returns how many of n rows of the table name are shown.
func (c *cuts) rows(name string, n int) int {
	if c == nil {
		return n
	}
	if l, ok := c.limit[name]; ok && l < n {
		return l
	}
	return n
}

// more writes the line that says how many rows of the table name are not
// shown, and the ways to them, when there are any.
func (c *cuts) more(b *strings.Builder, indent, name string, left int) {
	if c == nil || left <= 0 {
		return
	}
	b.WriteString(indent + "  … " + strconv.Itoa(left) + " more not shown: show " + name + c.ways + "\n")
}

// largest returns the table with the most rows shown above minRows; ""
// when none has.
func (c *cuts) largest() string {
	best, most := "", minRows
	for _, name := range sortedKeys(c.size) {
		if n := c.rows(name, c.size[name]); n > most {
			best, most = name, n
		}
	}
	return best
}

// Tables returns the names of a page's tables, as its text names them
// and [Budget.Whole] takes them ("tasks", "cart.items"), sorted.
func Tables(entities map[string]any) []string {
	n, _ := normal(entities).(map[string]any)
	return sortedKeys(tablesOf(n))
}

// tablesOf returns the tables of a page's entities by the name the text
// gives them: an entity's records ("tasks"), an entity's field's
// ("cart.items").
func tablesOf(entities map[string]any) map[string][]any {
	out := map[string][]any{}
	for k, v := range entities {
		if _, ok := records(v); ok {
			out[key(k)] = v.([]any)
			continue
		}
		if obj, ok := v.(map[string]any); ok {
			for f, fv := range obj {
				if _, ok := records(fv); ok {
					out[key(k)+"."+key(f)] = fv.([]any)
				}
			}
		}
	}
	return out
}

// tableRows returns the lines of text that are the rows of the table name.
func tableRows(text, name string) string {
	var b strings.Builder
	in := false
	for line := range strings.Lines(text) {
		switch {
		case strings.HasPrefix(line, "  "+name+" ("):
			in = true
		case in && strings.HasPrefix(line, "    "):
			b.WriteString(line)
		default:
			in = false
		}
	}
	return b.String()
}

// waysOf returns the ways to a page's rows that are not shown: its nav's
// links to the same path with another query, and its available read-only
// actions that take an input.
func waysOf(g *affordances.Graph) string {
	path, _, _ := strings.Cut(g.Page, "?")
	var pages, find []string
	for _, n := range g.Nav {
		if p, q, ok := strings.Cut(n.To, "?"); ok && p == path && q != "" && n.To != g.Page {
			pages = append(pages, Path(n.To))
		}
	}
	for _, a := range g.Actions {
		if a.Available && a.ReadOnly && len(Signature(a.Input)) > 2 {
			find = append(find, Name(a.Name))
		}
	}
	var b strings.Builder
	if len(pages) > 0 {
		b.WriteString("; pages: " + strings.Join(pages, ", "))
	}
	if len(find) > 0 {
		b.WriteString("; find: " + strings.Join(find, ", "))
	}
	return b.String()
}
