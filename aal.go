package affordances

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"regexp"
	"strings"

	"github.com/affordances/affordances-go/aal"
)

// label returns an action's name in words: "addToCart" is "Add to cart".
func label(action string) string {
	words := strings.ReplaceAll(aal.ID(action), "-", " ")
	words = strings.ReplaceAll(words, "_", " ")
	return strings.ToUpper(words[:1]) + words[1:]
}

// publishedAffordance is an action's affordance with everything but the
// cost fixed at declaration.
type publishedAffordance struct {
	aal.Affordance
	cost func(entities map[string]any) *aal.Cost
}

// affordanceOf compiles an action's AAL metadata, checking the static part
// against AAL 0.1.1; the error names the first problem.
func affordanceOf(a *Action, output json.RawMessage) (*publishedAffordance, error) {
	m := aal.Meta{}
	if a.AAL != nil {
		m = *a.AAL
	}
	p := &publishedAffordance{cost: m.Cost, Affordance: aal.Affordance{
		ID: aal.ID(a.Name), Selector: m.Selector, Action: m.Action, Label: m.Label,
		Destructive: m.Destructive, Reversible: m.Reversible, Trust: m.Trust,
		Preconditions: m.Preconditions, SuccessSchema: m.SuccessSchema,
	}}
	if p.Selector == "" {
		p.Selector = aal.Selector(a.Name)
	}
	if p.Action == "" {
		p.Action = aal.Submit
	}
	if p.Label == "" {
		p.Label = label(a.Name)
	}
	if p.Trust == "" {
		p.Trust = aal.TrustUser
		if a.ReadOnly {
			p.Trust = aal.TrustSafe
		}
	}
	if p.SuccessSchema == nil {
		p.SuccessSchema = successSchema(output)
	}
	f := &aal.Fragment{AAL: aal.Version, Page: "/", Affordances: []aal.Affordance{p.Affordance}}
	if problems := f.Validate(); len(problems) > 0 {
		pr := problems[0]
		return nil, fmt.Errorf("%s: %s", strings.TrimPrefix(pr.Pointer, "/affordances/0"), pr.Message)
	}
	return p, nil
}

// successSchema names the top-level properties of an output schema and
// their JSON types, as AAL's success_schema does.
func successSchema(output json.RawMessage) map[string]string {
	var s struct {
		Properties map[string]struct {
			Type any `json:"type"`
		} `json:"properties"`
	}
	if output == nil || json.Unmarshal(output, &s) != nil || len(s.Properties) == 0 {
		return nil
	}
	out := map[string]string{}
	for name, p := range s.Properties {
		types, _ := p.Type.([]any)
		if t, ok := p.Type.(string); ok {
			types = []any{t}
		}
		for _, t := range types {
			if t, _ := t.(string); t != "null" && t != "" && len(out) < 32 {
				out[name] = t
				break
			}
		}
	}
	if len(out) == 0 {
		return nil
	}
	return out
}

var currency = regexp.MustCompile(`^[A-Z]{3}$`)

// fragment computes the AAL fragment of req's page from its state: one
// affordance for each action the graph lists (docs/protocol.md decisions 7 and 9).
func (s *Site) fragment(req *Request, ls []listed) (*aal.Fragment, error) {
	f := &aal.Fragment{AAL: aal.Version, Page: s.full(req.Page), Flow: req.route.opts.Flow, Affordances: make([]aal.Affordance, 0, len(ls))}
	for _, l := range ls {
		a, err := l.a.affordance(req.State.Entities)
		if err != nil {
			return nil, err
		}
		f.Affordances = append(f.Affordances, a)
	}
	return f, nil
}

// affordance returns the AAL affordance of a on a page whose state holds
// entities: what was fixed at declaration, and the cost they make.
func (a *action) affordance(entities map[string]any) (aal.Affordance, error) {
	aff := a.aal.Affordance
	if a.aal.cost == nil {
		return aff, nil
	}
	c := a.aal.cost(entities)
	if c != nil && (!currency.MatchString(c.Currency) || !(c.Amount >= 0 && c.Amount <= 1e9)) {
		return aff, fmt.Errorf("affordances: the AAL cost of %s is %+v: want a currency like USD and an amount from 0 to 1e9", a.Name, *c)
	}
	aff.Cost = c
	return aff, nil
}

// pageOfFragment is the inverse of [aal.FragmentPath].
func pageOfFragment(path string) (string, bool) {
	rest, ok := strings.CutPrefix(path, aal.FragmentPrefix+"/")
	if !ok {
		return "", false
	}
	rest, ok = strings.CutSuffix(rest, ".json")
	if !ok || rest == "" {
		return "", false
	}
	if rest == "index" || strings.HasSuffix(rest, "/index") {
		return "/" + strings.TrimSuffix(rest, "index"), true // a page ending in /
	}
	return "/" + rest, true
}

// serveManifest answers GET /.well-known/agent-affordances.json: every
// route and the path of its fragment (docs/protocol.md decision 7).
func (s *Site) serveManifest(w http.ResponseWriter, r *http.Request) {
	m := aal.Manifest{AAL: aal.Version, Site: aal.ManifestSite{Name: s.opts.Name, Origin: s.origin(r)}, Routes: []aal.ManifestRoute{}}
	if m.Site.Name == "" {
		m.Site.Name = r.Host
	}
	for _, rt := range s.routes {
		m.Routes = append(m.Routes, aal.ManifestRoute{Route: rt.pattern, Fragment: s.full(aal.FragmentPath(rt.pattern))})
	}
	s.writeAAL(w, r, &m)
}

// serveFragment answers GET of a page's fragment (page, escaped), computed from the page's
// state for this requester with the same loader as its graph.
func (s *Site) serveFragment(w http.ResponseWriter, r *http.Request, next http.Handler, page string) {
	var rt *Route
	var params []param
	if own, ok := s.own(page); ok {
		page = own
		rt, params = s.route(r, next, page)
	}
	if rt == nil {
		s.writeError(w, r, libError(NotFound, phrase("This page has no AAL fragment.")))
		return
	}
	// The fragment's query is the page's: the state may depend on it.
	r2 := withURL(r, func(u *url.URL) {
		u.RawPath = page
		u.Path, _ = url.PathUnescape(page) // lookup unescaped it
	})
	req, p, err := s.loadFor(r, r2, rt, params)
	if err != nil {
		s.writeErrorFor(w, r, p, err)
		return
	}
	f, err := s.fragment(req, rt.listing(r.Context(), req))
	if err != nil {
		s.writeErrorFor(w, r, p, err)
		return
	}
	s.writeAAL(w, r, f)
}

// writeAAL writes an AAL document as application/json, private to the
// requester like a graph.
func (s *Site) writeAAL(w http.ResponseWriter, r *http.Request, v any) {
	body, err := json.Marshal(v)
	if err != nil {
		s.writeError(w, r, fmt.Errorf("affordances: encoding an AAL document: %w", err))
		return
	}
	h := w.Header()
	h.Set("Content-Type", "application/json")
	h.Set("Cache-Control", "private, no-store")
	h.Set("X-Content-Type-Options", "nosniff")
	if r.Method != http.MethodHead {
		w.Write(body)
	}
}
