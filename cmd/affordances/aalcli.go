package main

// inspect and call on a page that publishes AAL and no Affordances graph:
// the page read through its fragment and HTML (internal/aalpage), its
// affordances performed in headless Chromium with the person's session
// (internal/aalbrowser).

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"unicode/utf8"

	"github.com/affordances/affordances-go/aal"
	"github.com/affordances/affordances-go/agent"
	"github.com/affordances/affordances-go/internal/aalbrowser"
	"github.com/affordances/affordances-go/internal/aalpage"
	headless "github.com/affordances/affordances-go/internal/browser"
	"github.com/affordances/affordances-go/internal/display"
)

// aalHelp explains, for inspect's and call's help, what they do on a page
// without a graph.
const aalHelp = `A site that publishes AAL only (a manifest at /.well-known/agent-affordances.json,
a fragment per page, data-aal attributes, and no Affordances graph, as any PHP or
Rails site may): inspect reads the page's fragment (inline, linked with
<link rel="agent-affordances">, or named by the manifest for the page's route)
and shows each affordance with its label verbatim, its risk, the gate's
decision, the element its selector finds and the fields of its form (the
input a call gives). call performs it in headless Chromium (Debian's
chromium, or $CHROMIUM), as the person would: the gate first, the person's
approval when it asks, the form's fields filled from the input (a JSON
object, each field by its name or its label), a required field left empty or
a field the form lacks is an error before anything is clicked, then exactly
the element is clicked (among several, the one whose data-aal-input the
input picks), and the next page is shown: its URL, title, content and
affordances. The person's session is the cookie file (--cookie-jar, its
cookies for the URL's origin only, written back with those the browser then
holds).`

// loadAAL reads the page the site's URL names through AAL alone; an
// [aalpage.ErrGraph] says it has a graph.
func (s *site) loadAAL(ctx context.Context) (*aalpage.Page, error) {
	return aalpage.Load(ctx, s.hc, s.url)
}

// An aalPageJSON is an AAL page as inspect --json and call --json print
// it. Text from the site has passed through aal.Visible.
type aalPageJSON struct {
	URL         string                 `json:"url"`
	Title       string                 `json:"title"`
	Summary     string                 `json:"summary"`
	Graph       *struct{}              `json:"graph"` // always null: the page has none
	From        string                 `json:"from,omitempty"`
	FragmentURL string                 `json:"fragmentURL,omitempty"`
	Route       string                 `json:"route,omitempty"`
	Manifest    *aal.Manifest          `json:"manifest"`
	Fragment    *aal.Fragment          `json:"fragment"`
	Elements    map[string]elementJSON `json:"elements"`
	Verdicts    map[string]verdictJSON `json:"verdicts"`
	Notes       []string               `json:"notes,omitempty"`
}

// An elementJSON is what a page's HTML has for one affordance.
type elementJSON struct {
	Matches  int              `json:"matches"`
	Items    []map[string]any `json:"items,omitempty"`
	Problems []string         `json:"problems,omitempty"`
	Href     string           `json:"href,omitempty"`
	Method   string           `json:"method,omitempty"`
	Action   string           `json:"action,omitempty"`
	Fields   []aalpage.Field  `json:"fields,omitempty"`
	Input    json.RawMessage  `json:"input"`
}

func toAALPageJSON(p *aalpage.Page, gate *aal.Gate) aalPageJSON {
	out := aalPageJSON{URL: aal.Visible(p.URL), Title: aal.Visible(p.Title), Summary: aal.Visible(p.Summary), From: p.From,
		FragmentURL: aal.Visible(p.FragmentURL), Route: aal.Visible(p.Route), Manifest: p.Manifest, Fragment: p.Fragment,
		Elements: map[string]elementJSON{}, Verdicts: map[string]verdictJSON{}, Notes: p.Notes}
	if p.Fragment != nil {
		for _, a := range p.Fragment.Affordances {
			out.Verdicts[a.ID] = toVerdictJSON(gate.Decide(p.Origin(), a, ""))
			if el := p.Elements[a.ID]; el != nil {
				out.Elements[a.ID] = elementJSON{el.Matches, el.Items, el.Problems, aal.Visible(el.Href), el.Method, aal.Visible(el.Action), el.Fields, el.Input}
			}
		}
	}
	return out
}

// writeAALPage writes an AAL page for a person.
func writeAALPage(w io.Writer, p *aalpage.Page, gate *aal.Gate) {
	head := aal.Visible(p.URL) + "  (AAL only: no Affordances graph"
	if p.Fragment != nil && p.Fragment.Flow != nil {
		fl := p.Fragment.Flow
		head += fmt.Sprintf("; %s step %d of %d", aal.Visible(fl.ID), fl.Step, fl.Of)
	}
	fmt.Fprintln(w, head+")")
	fmt.Fprintln(w, "title:    "+aal.Visible(p.Title))
	switch p.From {
	case aalpage.FromInline:
		fmt.Fprintln(w, "AAL:      the fragment inlined in the page")
	case aalpage.FromLink:
		fmt.Fprintln(w, "AAL:      the fragment the page links, "+aal.Visible(sitePath(p.FragmentURL)))
	case aalpage.FromManifest:
		fmt.Fprintln(w, "AAL:      the fragment the manifest names for route "+aal.Visible(p.Route)+", "+aal.Visible(sitePath(p.FragmentURL)))
	}
	if m := p.Manifest; m != nil {
		line := fmt.Sprintf("site:     %s (manifest %s, %s", aal.Visible(m.Site.Name), aal.ManifestPath, plural(len(m.Routes), "route"))
		if p.Route != "" {
			line += ", this page's " + aal.Visible(p.Route)
		}
		fmt.Fprintln(w, line+")")
	}
	for _, n := range p.Notes {
		fmt.Fprintln(w, "note:     "+n)
	}

	fmt.Fprintln(w, "\nAffordances:")
	if p.Fragment == nil || len(p.Fragment.Affordances) == 0 {
		fmt.Fprintln(w, "  (none)")
	}
	if p.Fragment != nil {
		for _, a := range p.Fragment.Affordances {
			writeAALAffordance(w, p, a, gate.Decide(p.Origin(), a, ""))
		}
	}
	if p.Summary != "" {
		fmt.Fprintln(w, "\nContent:")
		for _, line := range wrapWords(aal.Visible(p.Summary), width-2) {
			fmt.Fprintln(w, "  "+line)
		}
	}
}

// wrapWords breaks s into lines of at most n characters, between words
// (a longer word has a line of its own).
func wrapWords(s string, n int) []string {
	var lines []string
	line := ""
	for _, word := range strings.Fields(s) {
		switch {
		case line == "":
			line = word
		case utf8.RuneCountInString(line)+1+utf8.RuneCountInString(word) <= n:
			line += " " + word
		default:
			lines = append(lines, line)
			line = word
		}
	}
	if line != "" {
		lines = append(lines, line)
	}
	return lines
}

// writeAALAffordance writes one affordance of an AAL page: what it does,
// the elements and form the HTML has for it, its input, the gate.
func writeAALAffordance(w io.Writer, p *aalpage.Page, a aal.Affordance, v aal.Verdict) {
	fmt.Fprintln(w, "  "+aal.Visible(a.ID)+"  "+affordanceText(a))
	el := p.Elements[a.ID]
	if el != nil {
		found := plural(el.Matches, "element")
		switch {
		case el.Matches == 0:
			found += ": not offered on this page now"
		case len(el.Items) > 0:
			items := make([]string, len(el.Items))
			for i, it := range el.Items {
				items[i] = display.JSON(it)
			}
			found += ", " + aal.InputAttribute + " " + strings.Join(items, ", ")
		}
		fmt.Fprintln(w, "    element: "+aal.Visible(a.Selector)+", "+found)
		for _, pr := range el.Problems {
			fmt.Fprintln(w, "             "+pr)
		}
		switch {
		case el.Method != "" && el.Action != "":
			fmt.Fprintln(w, "    form:    "+el.Method+" "+aal.Visible(sitePath(el.Action)))
		case el.Href != "":
			fmt.Fprintln(w, "    link:    "+aal.Visible(sitePath(el.Href)))
		}
		fmt.Fprintln(w, "    input:   "+display.InputLine(el.Input))
	}
	writeGate(w, v)
}

// sitePath writes a URL of the site as its path and query.
func sitePath(u string) string {
	p, err := url.Parse(u)
	if err != nil || p.Path == "" {
		return u
	}
	return p.RequestURI()
}

// writeAALIndex prints the routes of an AAL manifest for index: each with
// its fragment and, for a route without parameters, the fragment's
// affordances.
func writeAALIndex(ctx context.Context, e *env, asJSON bool, s *site, m *aal.Manifest) error {
	fragments := map[string]*aal.Fragment{}
	problems := map[string]string{}
	for _, r := range m.Routes {
		if strings.Contains(r.Route, "[") {
			continue
		}
		f, err := aalpage.LoadFragment(ctx, s.hc, s.origin, s.origin+r.Fragment)
		if err != nil {
			problems[r.Route] = strings.TrimPrefix(err.Error(), "aalpage: ")
			continue
		}
		fragments[r.Route] = f
	}
	if asJSON {
		return writeJSON(e.stdout, struct {
			Index     *struct{}                `json:"index"` // always null: the site has none
			Manifest  *aal.Manifest            `json:"manifest"`
			Fragments map[string]*aal.Fragment `json:"fragments"`
		}{nil, m, fragments})
	}
	w := e.stdout
	fmt.Fprintf(w, "%s: %s, AAL only (manifest %s, no Affordances site index)\n\n", aal.Visible(m.Site.Name), plural(len(m.Routes), "route"), aal.ManifestPath)
	for _, r := range m.Routes {
		fmt.Fprintln(w, aal.Visible(r.Route)+"  "+aal.Visible(r.Fragment))
		switch f, why := fragments[r.Route], problems[r.Route]; {
		case why != "":
			fmt.Fprintln(w, "  (its fragment could not be read: "+aal.Visible(why)+")")
		case f == nil:
			fmt.Fprintln(w, "  (a route with parameters: inspect one of its pages)")
		case len(f.Affordances) == 0:
			fmt.Fprintln(w, "  (no affordances)")
		default:
			col := 0
			for _, a := range f.Affordances {
				col = max(col, utf8.RuneCountInString(aal.Visible(a.ID)))
			}
			for _, a := range f.Affordances {
				id := aal.Visible(a.ID)
				fmt.Fprintln(w, "  "+id+strings.Repeat(" ", col-utf8.RuneCountInString(id))+"  "+aal.Visible(string(a.Action))+` "`+aal.Visible(a.Label)+`"`)
			}
		}
	}
	return nil
}

// runAALCall performs the affordance id of an AAL page with input, in
// headless Chromium, and prints the outcome.
func runAALCall(ctx context.Context, e *env, f *agentFlags, s *site, page *aalpage.Page, id string, raw json.RawMessage, ap *approval) error {
	var input map[string]any
	if raw != nil {
		if err := json.Unmarshal(raw, &input); err != nil || input == nil {
			return usagef("the input of an AAL affordance is a JSON object of its form's fields, such as '{\"title\":\"Tea\"}'")
		}
	}
	if _, ok := page.Affordance(id); !ok {
		return fmt.Errorf("the page %s has no affordance %q; its affordances: %s", aal.Visible(page.URL), aal.Visible(id), aal.Visible(strings.Join(page.IDs(), ", ")))
	}
	b, err := headless.Start(ctx, &headless.Options{Profile: f.profile})
	if err != nil {
		return err
	}
	defer b.Close()
	op := &aalbrowser.Operator{Browser: b, Profile: f.profile != "", HTTP: s.hc, Origin: s.origin, Gate: s.gate, Approver: ap}
	if s.jar != nil {
		u, _ := url.Parse(s.origin + "/")
		op.Cookies = s.jar.Cookies(u)
	}
	r, err := op.Execute(ctx, s.url, id, input)
	if r != nil && len(r.Cookies) > 0 && s.jar != nil {
		u, _ := url.Parse(s.origin + "/")
		for _, c := range r.Cookies {
			if !strings.HasPrefix(c.Domain, ".") {
				c.Domain = "" // a host-only cookie, as the browser holds it
			}
		}
		s.jar.SetCookies(u, r.Cookies)
		// Written now, before anything is printed: the session is the
		// person's, whatever becomes of the output.
		if werr := s.jar.save(); werr != nil {
			return fmt.Errorf("--cookie-jar: %w", werr)
		}
	}
	switch {
	case errors.Is(err, agent.ErrRefused):
		return reportRefused(e, f.json, page.URL, id, "nothing was clicked", r.Verdict)
	case errors.Is(err, agent.ErrNotApproved):
		return reportNotApproved(e, f, ap, nil)
	case err != nil:
		return err
	}
	if f.json {
		return writeJSON(e.stdout, aalResultJSON{OK: true, Affordance: id, Approved: r.Approved, Did: r.Did, Method: r.Method,
			Sent: aal.Visible(r.Sent), Status: r.Status, Next: toAALPageJSON(r.Next, s.gate)})
	}
	writeAALResult(e.stdout, r, s.gate)
	return nil
}

// An aalResultJSON is what call --json prints for an AAL affordance.
type aalResultJSON struct {
	OK         bool        `json:"ok"`
	Affordance string      `json:"affordance"`
	Approved   bool        `json:"approved"`
	Did        []string    `json:"did"`
	Method     string      `json:"method,omitempty"`
	Sent       string      `json:"sent,omitempty"`
	Status     int         `json:"status"`
	Next       aalPageJSON `json:"next"`
}

// writeAALResult writes what performing an affordance did, and the page
// it led to.
func writeAALResult(w io.Writer, r *aalbrowser.Result, gate *aal.Gate) {
	fmt.Fprintln(w, "ok")
	fmt.Fprintln(w, "did:      "+aal.Visible(strings.Join(r.Did, ", ")))
	if r.Sent != "" {
		fmt.Fprintln(w, "sent:     "+r.Method+" "+aal.Visible(r.Sent))
	}
	if r.Status != 0 {
		fmt.Fprintf(w, "status:   %d %s\n", r.Status, http.StatusText(r.Status))
	} else {
		fmt.Fprintln(w, "status:   no page loaded (the page's own script acted)")
	}
	fmt.Fprintln(w, "\nNow on:")
	writeAALPage(w, r.Next, gate)
}
