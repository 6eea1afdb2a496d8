package conformance

import (
	"slices"
	"strings"

	"github.com/affordances/affordances-go/aal"
)

// aalChecks are the checks of the site's AAL (docs/protocol.md §29 to §38,
// decisions 7, 9 and 11): its manifest and each page's fragment against
// their schema, that every action of a graph is an affordance of its page's
// fragment, and every selector against the page's HTML. On a site that
// publishes AAL alone they read its pages through their HTML (aalonly.go).
func aalChecks() []check {
	return []check{
		{"aal.manifest.valid", secAALMan, "A site serves a manifest at /.well-known/agent-affordances.json, pointing to per-route fragments; every affordance is checked against a JSON Schema.", Must, func(s *suite) verdict {
			if s.manX.status == 404 {
				return skip("the site publishes no AAL manifest")
			}
			if s.manX.status != 200 {
				return fail(s.manX, "the manifest answered %d", s.manX.status)
			}
			if ps := aal.ValidateManifest(s.manX.body); len(ps) > 0 {
				return fail(s.manX, "%s", problems(ps))
			}
			return pass(s.manX, "valid")
		}},
		{"aal.manifest.routes", secAALMeet, "One declaration serves both: every route with a graph has a fragment in the manifest.", Must, func(s *suite) verdict {
			if s.aalOnly {
				return aalOnlyManifestRoutes(s)
			}
			if s.manifest == nil {
				return skip("no AAL manifest")
			}
			return eachPage(s, func(p *page) (verdict, bool) {
				ok := slices.ContainsFunc(s.manifest.Routes, func(r aal.ManifestRoute) bool { return r.Route == p.graph.Route })
				return fail(s.manX, "the manifest has no fragment for route %s", p.graph.Route), ok
			})
		}},
		{"aal.fragment.valid", secAALValid, "Every affordance is checked against a JSON Schema before an agent acts on it (schema/aal-0.1.json, and the caps in code).", Must, func(s *suite) verdict {
			if s.aalOnly {
				return aalOnlyFragmentValid(s)
			}
			if s.manifest == nil {
				return skip("no AAL manifest")
			}
			return eachPage(s, func(p *page) (verdict, bool) {
				x := s.fragmentOf(p)
				if x == nil {
					return verdict{}, true
				}
				if x.status != 200 {
					return fail(x, "the fragment of %s answered %d", p.path, x.status), false
				}
				if ps := aal.ValidateFragment(x.body); len(ps) > 0 {
					return fail(x, "%s", problems(ps)), false
				}
				return verdict{}, true
			})
		}},
		{"aal.fragment.page", secAALFrag, "A fragment describes one concrete page: its page is that page's path.", Must, func(s *suite) verdict {
			if s.aalOnly {
				return aalOnlyFragmentPage(s)
			}
			if s.manifest == nil {
				return skip("no AAL manifest")
			}
			return eachPage(s, func(p *page) (verdict, bool) {
				if s.fragmentOf(p); p.fragment == nil {
					return verdict{}, true
				}
				return fail(p.fragX, "the fragment's page is %q for %s", p.fragment.Page, p.path), p.fragment.Page == pathOnly(p.path)
			})
		}},
		{"aal.fragment.affordances", secAALMeet, "An Affordances action addToCart is the AAL affordance add-to-cart (kebab case of the name).", Must, func(s *suite) verdict {
			if s.aalOnly {
				return skip("the site publishes no graph: there is no Affordances action to map to an affordance")
			}
			if s.manifest == nil {
				return skip("no AAL manifest")
			}
			return eachPage(s, func(p *page) (verdict, bool) {
				if s.fragmentOf(p); p.fragment == nil {
					return verdict{}, true
				}
				for _, a := range p.graph.Actions {
					id := aal.ID(a.Name)
					if !slices.ContainsFunc(p.fragment.Affordances, func(f aal.Affordance) bool { return f.ID == id }) {
						return fail(p.fragX, "action %q of %s has no affordance %q", a.Name, p.path, id), false
					}
				}
				return verdict{}, true
			})
		}},
		{"aal.selector.unique", secC11, "While an action is available on a page, its affordance's selector matches at least one element of that page's HTML. A selector may match several elements when the action acts on one of several items: then every matched element carries data-aal-input, a JSON object with the input fields that pick its item, and no two matched elements carry the same object.", Must, func(s *suite) verdict {
			if s.aalOnly {
				return aalOnlySelectors(s)
			}
			if s.manifest == nil {
				return skip("no AAL manifest")
			}
			return eachPage(s, func(p *page) (verdict, bool) {
				if s.fragmentOf(p); p.fragment == nil {
					return verdict{}, true
				}
				x, doc, v, ok := s.pageDoc(p)
				if !ok {
					return v, false
				}
				if sps := doc.CheckSelectors(p.graph.Actions, p.fragment); len(sps) > 0 {
					sp := sps[0]
					return fail(x, "page %s, affordance %q, selector %s: %s", p.path, sp.ID, aal.Visible(sp.Selector), strings.Join(sp.Problems, "; ")), false
				}
				return verdict{}, true
			})
		}},
	}
}

// problems joins the problems of a document in one line.
func problems(ps []aal.Problem) string {
	var out []string
	for _, p := range ps {
		out = append(out, p.String())
	}
	return strings.Join(out, "; ")
}
