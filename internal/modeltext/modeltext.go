package modeltext

import (
	"bytes"
	"encoding/json"
	"fmt"
	"regexp"
	"sort"
	"strings"
	"unicode"

	affordances "github.com/affordances/affordances-go"
	"github.com/affordances/affordances-go/aal"
)

// Graph writes a page's graph. verdict, when not nil, gives the gate's
// decision on each action (an [agent.Page]'s Assess fits); nil leaves the
// gate out.
func Graph(g *affordances.Graph, verdict func(action string) aal.Verdict) string {
	return graph(g, verdict, nil)
}

// graph writes g as Graph does, its tables cut as c says (every row for a
// nil c).
func graph(g *affordances.Graph, verdict func(action string) aal.Verdict, c *cuts) string {
	var b strings.Builder
	b.WriteString("page " + Path(g.Page))
	if g.Route != "" && g.Route != g.Page {
		b.WriteString(" (route " + Path(g.Route) + ")")
	}
	b.WriteString("\n")
	writeEntities(&b, "entities", g.Entities, c)
	b.WriteString("actions:")
	if len(g.Actions) == 0 {
		b.WriteString(" none")
	}
	b.WriteString("\n")
	writeActions(&b, g.Actions, verdict)
	if len(g.Nav) > 0 {
		links := make([]string, len(g.Nav))
		for i, n := range g.Nav {
			links[i] = Path(n.To)
			if n.Label != "" {
				links[i] += " " + Quote(n.Label)
			}
			if n.When != "" {
				links[i] += " (when " + Quote(n.When) + ")"
			}
		}
		b.WriteString("nav: " + strings.Join(links, ", ") + "\n")
	}
	if g.MD != "" {
		b.WriteString("md:\n")
		writeLines(&b, "  ", g.MD)
	}
	return b.String()
}

// Delta writes the answer to a call.
func Delta(d *affordances.Delta) string {
	return delta(d, func(b *strings.Builder) { writeEntities(b, "changed", d.Changed, nil) })
}

// delta writes the answer to a call, its changed entities by changed.
func delta(d *affordances.Delta, changed func(b *strings.Builder)) string {
	var b strings.Builder
	switch {
	case d.OK:
		b.WriteString("ok\n")
	case d.Error != nil:
		b.WriteString("error " + Name(string(d.Error.Code)) + ": " + str(d.Error.Message) + "\n")
		for _, is := range d.Error.Issues {
			b.WriteString("  at " + Quote(is.Path) + ": " + str(is.Message) + "\n")
		}
	default:
		b.WriteString("not ok\n")
	}
	if d.Message != "" {
		b.WriteString("message: " + str(d.Message) + "\n")
	}
	if d.Output != nil {
		b.WriteString("output: " + value(normal(d.Output)) + "\n")
	}
	if d.Changed != nil {
		changed(&b)
	}
	if len(d.ActionsAdded) > 0 {
		b.WriteString("actions added or changed:\n")
		writeActions(&b, d.ActionsAdded, nil)
	}
	if len(d.ActionsRemoved) > 0 {
		b.WriteString("actions removed: " + strings.Join(names(d.ActionsRemoved), ", ") + "\n")
	}
	if d.Redirect != "" {
		b.WriteString("redirect: " + Path(d.Redirect) + "\n")
	}
	if d.Approval != nil {
		b.WriteString("approval: a person approves on " + Path(d.Approval.URL) + " until " + d.Approval.Expires.UTC().Format("2006-01-02T15:04:05Z07:00") + "\n")
	}
	return b.String()
}

// Index writes a site index.
func Index(ix *affordances.SiteIndex) string {
	var b strings.Builder
	b.WriteString("site")
	if ix.Name != "" {
		b.WriteString(" " + Quote(ix.Name))
	}
	auth := make([]string, len(ix.Auth))
	for i, a := range ix.Auth {
		auth[i] = Name(string(a))
	}
	if len(auth) == 0 {
		auth = []string{"none"}
	}
	b.WriteString("  auth: " + strings.Join(auth, ", "))
	if ix.MCP != "" {
		b.WriteString("  mcp: " + Path(ix.MCP))
	}
	b.WriteString("\n")
	for _, r := range ix.Routes {
		b.WriteString("route " + Path(r.Route))
		if r.Description != "" {
			b.WriteString(" # " + str(r.Description))
		}
		b.WriteString("\n")
		for _, a := range r.Actions {
			out := ""
			if len(bytes.TrimSpace(a.Output)) > 0 {
				out = outputText(a.Output)
			}
			writeAction(&b, "  ", affordances.ActionDescriptor{ActionSummary: a, Available: true}, out, nil)
		}
	}
	return b.String()
}

// writeEntities writes a map of entities under a heading: one line each,
// with its records (arrays of objects with the same keys) as tables.
func writeEntities(b *strings.Builder, heading string, m map[string]any, c *cuts) {
	b.WriteString(heading + ":")
	if len(m) == 0 {
		b.WriteString(" none\n")
		return
	}
	b.WriteString("\n")
	n, _ := normal(m).(map[string]any)
	for _, k := range sortedKeys(n) {
		writeEntity(b, "  ", key(k), n[k], c)
	}
}

// writeEntity writes one named value: a table for records, an object's
// records as tables of their own after its other fields.
func writeEntity(b *strings.Builder, indent, name string, v any, c *cuts) {
	if cols, ok := records(v); ok {
		writeTable(b, indent, name, cols, v.([]any), c)
		return
	}
	obj, ok := v.(map[string]any)
	if !ok {
		b.WriteString(indent + name + ": " + value(v) + "\n")
		return
	}
	var rest []string
	var tables []string
	for _, k := range sortedKeys(obj) {
		if _, ok := records(obj[k]); ok {
			tables = append(tables, k)
			continue
		}
		rest = append(rest, key(k)+": "+value(obj[k]))
	}
	if len(rest) > 0 || len(tables) == 0 {
		b.WriteString(indent + name + ": {" + strings.Join(rest, ", ") + "}\n")
	}
	for _, k := range tables {
		cols, _ := records(obj[k])
		writeTable(b, indent, name+"."+key(k), cols, obj[k].([]any), c)
	}
}

func writeTable(b *strings.Builder, indent, name string, cols []string, rows []any, c *cuts) {
	head := make([]string, len(cols))
	for i, c := range cols {
		head[i] = key(c)
	}
	shown := c.rows(name, len(rows))
	if shown < len(rows) {
		fmt.Fprintf(b, "%s%s (%d, first %d shown): %s\n", indent, name, len(rows), shown, strings.Join(head, " | "))
	} else {
		fmt.Fprintf(b, "%s%s (%d): %s\n", indent, name, len(rows), strings.Join(head, " | "))
	}
	defer c.more(b, indent, name, len(rows)-shown)
	for _, r := range rows[:shown] {
		m := r.(map[string]any)
		cells := make([]string, len(cols))
		for i, c := range cols {
			if x, ok := m[c]; ok {
				cells[i] = value(x)
			}
		}
		b.WriteString(indent + "  " + strings.Join(cells, " | ") + "\n")
	}
}

// records returns the columns of v when it is a table: a non-empty array
// of non-empty objects, each with at least half of all their keys (the
// columns, sorted); a row without a key has an empty cell there.
func records(v any) ([]string, bool) {
	rows, ok := v.([]any)
	if !ok || len(rows) == 0 {
		return nil, false
	}
	seen := map[string]bool{}
	for _, r := range rows {
		m, ok := r.(map[string]any)
		if !ok || len(m) == 0 {
			return nil, false
		}
		for k := range m {
			seen[k] = true
		}
	}
	for _, r := range rows {
		if 2*len(r.(map[string]any)) < len(seen) {
			return nil, false
		}
	}
	return sortedKeys(seen), true
}

// writeActions writes the available actions, each with the gate's
// verdict when verdict is not nil, then the unavailable ones: their names
// on one line for each reason, as a page shows a disabled button and why.
// A model cannot call them now, and their input changes with what made
// them unavailable (signing in): it reads them again once it can.
func writeActions(b *strings.Builder, actions []affordances.ActionDescriptor, verdict func(action string) aal.Verdict) {
	var reasons []string
	unavailable := map[string][]string{}
	var outputs [][2]string // the actions' names and output types so far
	for _, a := range actions {
		if !a.Available {
			if _, ok := unavailable[a.Reason]; !ok {
				reasons = append(reasons, a.Reason)
			}
			unavailable[a.Reason] = append(unavailable[a.Reason], Name(a.Name))
			continue
		}
		var v *aal.Verdict
		if verdict != nil {
			x := verdict(a.Name)
			v = &x
		}
		out := ""
		if len(bytes.TrimSpace(a.Output)) > 0 {
			out = outputText(a.Output)
			full := out
			for _, o := range outputs {
				if len(o[1]) >= minShared && strings.Contains(out, o[1]) {
					out = strings.ReplaceAll(out, "("+o[1]+")", o[1])
					out = strings.ReplaceAll(out, o[1], "("+o[0]+"'s output)")
				}
			}
			outputs = append(outputs, [2]string{Name(a.Name), full})
		}
		writeAction(b, "  ", a, out, v)
	}
	for _, r := range reasons {
		b.WriteString("  UNAVAILABLE")
		if r != "" {
			b.WriteString(" " + Quote(r))
		}
		b.WriteString(": " + strings.Join(unavailable[r], ", ") + "\n")
	}
}

// minShared is the length from which a type an earlier action's output
// already spelled out is written "(NAME's output)": a list of what
// another action returns one of (a search's tasks, a create's task).
const minShared = 40

// writeAction writes one action: its signature, output (its type as
// written, "" for none), expose and the rest on one line, and its
// description on the next. v, when not nil, is the gate's verdict, left
// out when the gate allows the action.
func writeAction(b *strings.Builder, indent string, a affordances.ActionDescriptor, output string, v *aal.Verdict) {
	b.WriteString(indent + Name(a.Name) + Signature(a.Input))
	if output != "" {
		b.WriteString(" -> " + output)
	}
	tags := []string{Name(string(a.Expose))}
	if a.ReadOnly {
		tags = append(tags, "read-only")
	}
	b.WriteString("  [" + strings.Join(tags, ", ") + "]")
	if a.Effects != nil {
		e := "none"
		if len(a.Effects) > 0 {
			e = strings.Join(names(a.Effects), ", ")
		}
		b.WriteString("  effects: " + e)
	}
	if a.Guard != "" {
		b.WriteString("  guard: " + Quote(a.Guard))
	}
	if v != nil && v.Decision != aal.Allow {
		b.WriteString("  gate: " + Verdict(*v))
	}
	b.WriteString("\n")
	if a.Description != "" {
		b.WriteString(indent + "  # " + str(a.Description) + "\n")
	}
}

// Verdict words the gate's decision in a few words: "allow", "ask:
// destructive, financial (USD 36.00)" (the classes a person must approve),
// "refuse: " and the gate's first reason.
func Verdict(v aal.Verdict) string {
	switch v.Decision {
	case aal.Allow:
		return "allow"
	case aal.Ask:
		cs := v.Uncovered
		if len(cs) == 0 {
			cs = v.Classes
		}
		out := "ask"
		if len(cs) > 0 {
			names := make([]string, len(cs))
			for i, c := range cs {
				names[i] = string(c)
			}
			out += ": " + strings.Join(names, ", ")
		}
		if v.Amount != nil {
			out += " (" + aal.Visible(v.Amount.String()) + ")"
		}
		return out
	default:
		out := string(v.Decision)
		if len(v.Reasons) > 0 {
			out += ": " + v.Reasons[0] // through aal.Visible by the gate
		}
		return out
	}
}

// writeLines writes multi-line site text, each line through
// [aal.Visible].
func writeLines(b *strings.Builder, indent, s string) {
	for line := range strings.Lines(s) {
		b.WriteString(indent + aal.Visible(strings.TrimSuffix(line, "\n")) + "\n")
	}
}

// str is site text as written: through [aal.Visible], which leaves it on
// one line.
func str(s string) string { return aal.Visible(s) }

// Quote writes site text in double quotes, through [aal.Visible], a
// quote in it written \" (a backslash is \\ already): one word of the
// text however it reads.
func Quote(s string) string {
	return `"` + strings.ReplaceAll(aal.Visible(s), `"`, `\"`) + `"`
}

// Name writes a name a site gives (an action's, an effect, an expose, an
// auth method, an error code, an AAL id) as one word: bare when it is
// letters, digits, _, . and - (the protocol's action names and AAL's ids
// are), quoted otherwise, and "none" quoted, so that no name can add a
// word, a tag or a line of the text's own.
func Name(s string) string {
	if s != "none" && plainName.MatchString(s) {
		return s
	}
	return Quote(s)
}

var plainName = regexp.MustCompile(`^[A-Za-z0-9_][A-Za-z0-9_.-]*$`)

// Path writes a path or URL a site gives (a page, a route, a nav target, a
// redirect, an approval page) as one word: bare when it has no space,
// quote, comma or backslash and nothing [aal.Visible] changes, quoted
// otherwise, so that no path can add a word, a link or a label of the
// text's own.
func Path(s string) string {
	if s == "" || aal.Visible(s) != s || strings.ContainsAny(s, "\",\\") || strings.ContainsFunc(s, unicode.IsSpace) {
		return Quote(s)
	}
	return s
}

func names(ss []string) []string {
	out := make([]string, len(ss))
	for i, s := range ss {
		out[i] = Name(s)
	}
	return out
}

// key is an object's key: bare when it is a plain name, quoted when not.
func key(k string) string {
	if bare(k) {
		return k
	}
	return Quote(k)
}

// value writes a JSON value compactly: strings bare when nothing could
// misread them, objects {k: v}, arrays [a, b].
func value(v any) string {
	switch t := v.(type) {
	case nil:
		return "null"
	case bool:
		if t {
			return "true"
		}
		return "false"
	case json.Number:
		return t.String()
	case string:
		if bare(t) {
			return t
		}
		return Quote(t)
	case []any:
		parts := make([]string, len(t))
		for i, x := range t {
			parts[i] = value(x)
		}
		return "[" + strings.Join(parts, ", ") + "]"
	case map[string]any:
		parts := make([]string, 0, len(t))
		for _, k := range sortedKeys(t) {
			parts = append(parts, key(k)+": "+value(t[k]))
		}
		return "{" + strings.Join(parts, ", ") + "}"
	}
	return Quote(fmt.Sprint(v))
}

// bare says a string reads unambiguously without quotes: not empty, no
// outer spaces, none of the characters that structure the text (a table's
// | included, so a cell needs no quoting of its own), and not a word or
// number JSON reads as another type.
func bare(s string) bool {
	if s == "" || s != strings.TrimSpace(s) || strings.ContainsAny(s, "\"{}[],:|#\\") || strings.Contains(s, "/*") || aal.Visible(s) != s {
		return false
	}
	switch s {
	case "null", "true", "false", "none":
		return false
	}
	var n json.Number
	return json.Unmarshal([]byte(s), &n) != nil
}

// normal turns any JSON-able value into plain JSON values, numbers as
// [json.Number] so that they are written as the site wrote them.
func normal(v any) any {
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Sprint(v)
	}
	d := json.NewDecoder(bytes.NewReader(b))
	d.UseNumber()
	var x any
	if d.Decode(&x) != nil {
		return fmt.Sprint(v)
	}
	return x
}

func sortedKeys[V any](m map[string]V) []string {
	ks := make([]string, 0, len(m))
	for k := range m {
		ks = append(ks, k)
	}
	sort.Strings(ks)
	return ks
}
