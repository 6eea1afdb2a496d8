package modeltext_test

import (
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"

	affordances "github.com/affordances/affordances-go"
	"github.com/affordances/affordances-go/aal"
)

// This file reads the text back, by the grammar of doc.go, where a site's
// names and paths go: each must be one word there, bare or quoted, that
// reads back as the site's string, so that no site string adds a line, a
// tag, a link or a label.

// lexed is a line of the text with each quoted string replaced by "N", N
// its index in quoted (unquoted: \" read as "), and each /* comment */ by
// /**/.
type lexed struct {
	skel   string
	quoted []string
}

func lex(line string) lexed {
	var l lexed
	var b strings.Builder
	for i := 0; i < len(line); {
		switch {
		case line[i] == '"':
			s, n := unquote(line[i:])
			fmt.Fprintf(&b, `"%d"`, len(l.quoted))
			l.quoted = append(l.quoted, s)
			i += n
		case strings.HasPrefix(line[i:], "/* "):
			// A comment, its text quoted when it holds */.
			j := i + 3
			if j < len(line) && line[j] == '"' {
				_, n := unquote(line[j:])
				j += n
			}
			end := strings.Index(line[j:], " */")
			if end < 0 {
				b.WriteString(line[i:])
				i = len(line)
				continue
			}
			b.WriteString("/**/")
			i = j + end + 3
		default:
			b.WriteByte(line[i])
			i++
		}
	}
	l.skel = b.String()
	return l
}

// unquote reads the quoted string at the start of s: its text, a \" read
// as a quote and any other escape kept as written (aal.Visible's), and the
// bytes it takes.
func unquote(s string) (string, int) {
	var b strings.Builder
	for i := 1; i < len(s); i++ {
		switch s[i] {
		case '"':
			return b.String(), i + 1
		case '\\':
			if i+1 < len(s) && s[i+1] == '"' {
				b.WriteByte('"')
			} else if i+1 < len(s) {
				b.WriteString(s[i : i+2])
			}
			i++
		default:
			b.WriteByte(s[i])
		}
	}
	return b.String(), len(s) // unterminated: the test that reads it fails
}

// word returns what a word of the skeleton stands for: a quoted string's
// text, or the bare word itself.
func (l lexed) word(w string) string {
	if n, err := strconv.Atoi(strings.Trim(w, `"`)); err == nil && strings.HasPrefix(w, `"`) {
		return l.quoted[n]
	}
	return w
}

// The words of the grammar, as regular expressions over a skeleton.
const (
	reQuoted = `"\d+"`
	reName   = `(?:"\d+"|[A-Za-z0-9_][A-Za-z0-9_.-]*)`
	rePath   = `(?:"\d+"|[^\s",\\]+)`
)

var (
	pageLine        = regexp.MustCompile(`^page (` + rePath + `)(?: \(route (` + rePath + `)\))?$`)
	actionHead      = regexp.MustCompile(`^  (` + reName + `)\(`)
	exposeTag       = regexp.MustCompile(`  \[(` + reName + `)(, read-only)?\]`)
	effectsTag      = regexp.MustCompile(`  effects: (none|` + reName + `(?:, ` + reName + `)*)(?:  |$)`)
	unavailableLine = regexp.MustCompile(`^  UNAVAILABLE(?: (` + reQuoted + `))?: (` + reName + `(?:, ` + reName + `)*)$`)
	navLink         = regexp.MustCompile(`^(` + rePath + `)(?: (` + reQuoted + `))?(?: \(when (` + reQuoted + `)\))?$`)
	removedLine     = regexp.MustCompile(`^actions removed: (` + reName + `(?:, ` + reName + `)*)$`)
	redirectLine    = regexp.MustCompile(`^redirect: (` + rePath + `)$`)
	approvalLine    = regexp.MustCompile(`^approval: a person approves on (` + rePath + `) until \S+$`)
	errorLine       = regexp.MustCompile(`^error (` + reName + `): `)
	siteLine        = regexp.MustCompile(`^site(?: (` + reQuoted + `))?  auth: (` + reName + `(?:, ` + reName + `)*)(?:  mcp: (` + rePath + `))?$`)
	routeLine       = regexp.MustCompile(`^route (` + rePath + `)(?: # .*)?$`)
)

// words splits a list of words joined by ", " and reads each back.
func (l lexed) words(list string) []string {
	var out []string
	for w := range strings.SplitSeq(list, ", ") {
		out = append(out, l.word(w))
	}
	return out
}

func visible(ss []string) []string {
	out := make([]string, len(ss))
	for i, s := range ss {
		out[i] = aal.Visible(s)
	}
	return out
}

// heads returns the lines of text that are not indented.
func heads(text string) []string {
	var out []string
	for line := range strings.Lines(text) {
		if !strings.HasPrefix(line, " ") {
			out = append(out, strings.TrimSuffix(line, "\n"))
		}
	}
	return out
}

// startsWith reports whether each line starts with its prefix, and there
// are as many lines as prefixes.
func startsWith(lines, prefixes []string) bool {
	if len(lines) != len(prefixes) {
		return false
	}
	for i, p := range prefixes {
		if !strings.HasPrefix(lines[i], p) {
			return false
		}
	}
	return true
}

// block returns the lines under the unindented line that starts with
// head, up to the next unindented one.
func block(text, head string) []string {
	var out []string
	in := false
	for line := range strings.Lines(text) {
		line = strings.TrimSuffix(line, "\n")
		if !strings.HasPrefix(line, " ") {
			in = strings.HasPrefix(line, head)
			continue
		}
		if in {
			out = append(out, line)
		}
	}
	return out
}

// lineStarting returns the unindented line that starts with prefix.
func lineStarting(text, prefix string) string {
	for _, h := range heads(text) {
		if strings.HasPrefix(h, prefix) {
			return h
		}
	}
	return ""
}

// checkActions reads back the actions of a block: each available action's
// line starts with its name as one word and has one expose tag, at most
// one effects, guard and gate, its expose and effects read back; the
// unavailable ones are on their reasons' lines, each name one word.
func checkActions(lines []string, actions []affordances.ActionDescriptor) []string {
	var problems []string
	var available []affordances.ActionDescriptor
	var unavailable []string
	for _, a := range actions {
		if a.Available {
			available = append(available, a)
		} else {
			unavailable = append(unavailable, aal.Visible(a.Name))
		}
	}
	var gotUnavailable []string
	next := 0
	for _, line := range lines {
		if strings.HasPrefix(line, "    # ") {
			continue // a description: free text, the rest of its line
		}
		l := lex(line)
		if m := unavailableLine.FindStringSubmatch(l.skel); m != nil {
			gotUnavailable = append(gotUnavailable, l.words(m[2])...)
			continue
		}
		m := actionHead.FindStringSubmatch(l.skel)
		if m == nil || next >= len(available) {
			problems = append(problems, fmt.Sprintf("a line that is no action's: %q", line))
			continue
		}
		a := available[next]
		next++
		if got := l.word(m[1]); got != aal.Visible(a.Name) {
			problems = append(problems, fmt.Sprintf("action %q: its line names %q: %q", a.Name, got, line))
		}
		for tag, want := range map[string]int{"  [": 1, "  effects: ": boolInt(a.Effects != nil), "  guard: ": boolInt(a.Guard != ""), "  gate: ": 0} {
			if got := strings.Count(l.skel, tag); got != want {
				problems = append(problems, fmt.Sprintf("action %q: %d %q, want %d: %q", a.Name, got, tag, want, line))
			}
		}
		if e := exposeTag.FindStringSubmatch(l.skel); e == nil || l.word(e[1]) != aal.Visible(string(a.Expose)) || (e[2] != "") != a.ReadOnly {
			problems = append(problems, fmt.Sprintf("action %q: the expose tag does not read back as %q, read-only %v: %q", a.Name, a.Expose, a.ReadOnly, line))
		}
		if a.Effects != nil {
			e := effectsTag.FindStringSubmatch(l.skel)
			want := visible(a.Effects)
			if len(want) == 0 {
				want = []string{"none"}
			}
			if e == nil || !slices.Equal(l.words(e[1]), want) {
				problems = append(problems, fmt.Sprintf("action %q: effects do not read back as %q: %q", a.Name, a.Effects, line))
			}
		}
	}
	if next != len(available) {
		problems = append(problems, fmt.Sprintf("%d action lines, want %d", next, len(available)))
	}
	slices.Sort(gotUnavailable)
	slices.Sort(unavailable)
	if !slices.Equal(gotUnavailable, unavailable) {
		problems = append(problems, fmt.Sprintf("unavailable: read back %q, want %q", gotUnavailable, unavailable))
	}
	return problems
}

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}

// checkGraph reads a graph's text back: its unindented lines are the
// grammar's, the page and route one word each, the actions as
// checkActions reads them, and the nav one link for each of the site's,
// each target one word with its label and condition quoted.
func checkGraph(g *affordances.Graph, text string) []string {
	var problems []string
	want := []string{"page ", "entities:", "actions:"}
	if len(g.Nav) > 0 {
		want = append(want, "nav: ")
	}
	if g.MD != "" {
		want = append(want, "md:")
	}
	if h := heads(text); !startsWith(h, want) {
		problems = append(problems, fmt.Sprintf("unindented lines %q, want the grammar's %q", h, want))
	}
	l := lex(lineStarting(text, "page "))
	m := pageLine.FindStringSubmatch(l.skel)
	wantRoute := ""
	if g.Route != g.Page {
		wantRoute = aal.Visible(g.Route)
	}
	if m == nil || l.word(m[1]) != aal.Visible(g.Page) || m[2] != "" && l.word(m[2]) != wantRoute || m[2] == "" && wantRoute != "" {
		problems = append(problems, fmt.Sprintf("the page line does not read back as page %q, route %q: %q", g.Page, g.Route, l.skel))
	}
	problems = append(problems, checkActions(block(text, "actions:"), g.Actions)...)
	if len(g.Nav) > 0 {
		l := lex(strings.TrimPrefix(lineStarting(text, "nav: "), "nav: "))
		links := strings.Split(l.skel, ", ")
		if len(links) != len(g.Nav) {
			problems = append(problems, fmt.Sprintf("nav: %d links, want %d: %q", len(links), len(g.Nav), l.skel))
		} else {
			for i, n := range g.Nav {
				m := navLink.FindStringSubmatch(links[i])
				if m == nil || l.word(m[1]) != aal.Visible(n.To) || (m[2] != "") != (n.Label != "") || m[2] != "" && l.word(m[2]) != aal.Visible(n.Label) ||
					(m[3] != "") != (n.When != "") || m[3] != "" && l.word(m[3]) != aal.Visible(n.When) {
					problems = append(problems, fmt.Sprintf("nav link %d does not read back as %q %q (when %q): %q", i, n.To, n.Label, n.When, links[i]))
				}
			}
		}
	}
	return problems
}

// checkDelta reads a delta's text back: its unindented lines are the
// grammar's, the error code, the actions removed, the redirect and the
// approval page one word each.
func checkDelta(d *affordances.Delta, text string) []string {
	var problems []string
	var want []string
	switch {
	case d.OK:
		want = append(want, "ok")
	case d.Error != nil:
		want = append(want, "error ")
	default:
		want = append(want, "not ok")
	}
	for _, w := range []struct {
		head string
		has  bool
	}{{"message: ", d.Message != ""}, {"output: ", d.Output != nil}, {"changed:", d.Changed != nil}, {"actions added or changed:", len(d.ActionsAdded) > 0},
		{"actions removed: ", len(d.ActionsRemoved) > 0}, {"redirect: ", d.Redirect != ""}, {"approval: ", d.Approval != nil}} {
		if w.has {
			want = append(want, w.head)
		}
	}
	if h := heads(text); !startsWith(h, want) {
		problems = append(problems, fmt.Sprintf("unindented lines %q, want the grammar's %q", h, want))
	}
	if d.Error != nil && !d.OK {
		l := lex(lineStarting(text, "error "))
		if m := errorLine.FindStringSubmatch(l.skel); m == nil || l.word(m[1]) != aal.Visible(string(d.Error.Code)) {
			problems = append(problems, fmt.Sprintf("the error line does not read back as code %q: %q", d.Error.Code, l.skel))
		}
	}
	problems = append(problems, checkActions(block(text, "actions added or changed:"), d.ActionsAdded)...)
	if len(d.ActionsRemoved) > 0 {
		l := lex(lineStarting(text, "actions removed: "))
		if m := removedLine.FindStringSubmatch(l.skel); m == nil || !slices.Equal(l.words(m[1]), visible(d.ActionsRemoved)) {
			problems = append(problems, fmt.Sprintf("actions removed do not read back as %q: %q", d.ActionsRemoved, l.skel))
		}
	}
	for _, p := range []struct {
		re   *regexp.Regexp
		head string
		want string
	}{{redirectLine, "redirect: ", d.Redirect}, {approvalLine, "approval: ", approvalURL(d)}} {
		if p.want == "" {
			continue
		}
		l := lex(lineStarting(text, p.head))
		if m := p.re.FindStringSubmatch(l.skel); m == nil || l.word(m[1]) != aal.Visible(p.want) {
			problems = append(problems, fmt.Sprintf("%q does not read back as %q: %q", p.head, p.want, l.skel))
		}
	}
	return problems
}

func approvalURL(d *affordances.Delta) string {
	if d.Approval == nil {
		return ""
	}
	return d.Approval.URL
}

// checkIndex reads a site index's text back: the auth methods and the MCP
// endpoint one word each, each route one word on its line, its actions
// under it as checkActions reads them.
func checkIndex(ix *affordances.SiteIndex, text string) []string {
	var problems []string
	want := []string{"site"}
	for range ix.Routes {
		want = append(want, "route ")
	}
	h := heads(text)
	if !startsWith(h, want) {
		return append(problems, fmt.Sprintf("unindented lines %q, want the grammar's %q", h, want))
	}
	l := lex(h[0])
	auth := []string{}
	for _, a := range ix.Auth {
		auth = append(auth, aal.Visible(string(a)))
	}
	if len(auth) == 0 {
		auth = []string{"none"}
	}
	if m := siteLine.FindStringSubmatch(l.skel); m == nil || (m[1] != "") != (ix.Name != "") || m[1] != "" && l.word(m[1]) != aal.Visible(ix.Name) ||
		!slices.Equal(l.words(m[2]), auth) || (m[3] != "") != (ix.MCP != "") || m[3] != "" && l.word(m[3]) != aal.Visible(ix.MCP) {
		problems = append(problems, fmt.Sprintf("the site line does not read back as %q, auth %q, mcp %q: %q", ix.Name, ix.Auth, ix.MCP, l.skel))
	}
	var under [][]string // the lines under each route
	for line := range strings.Lines(text) {
		line = strings.TrimSuffix(line, "\n")
		switch {
		case strings.HasPrefix(line, "route "):
			under = append(under, nil)
		case strings.HasPrefix(line, " ") && len(under) > 0:
			under[len(under)-1] = append(under[len(under)-1], line)
		}
	}
	for i, r := range ix.Routes {
		l := lex(h[i+1])
		if m := routeLine.FindStringSubmatch(l.skel); m == nil || l.word(m[1]) != aal.Visible(r.Route) {
			problems = append(problems, fmt.Sprintf("route %d does not read back as %q: %q", i, r.Route, l.skel))
		}
		actions := make([]affordances.ActionDescriptor, len(r.Actions))
		for j, a := range r.Actions {
			actions[j] = affordances.ActionDescriptor{ActionSummary: a, Available: true}
		}
		problems = append(problems, checkActions(under[i], actions)...)
	}
	return problems
}
