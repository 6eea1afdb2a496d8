package conformance

import (
	"encoding/json"
	"errors"
	"mime"
	"net/url"
	"strings"

	"github.com/affordances/affordances-go/aal"
	"github.com/affordances/affordances-go/internal/aalpage"
	"github.com/affordances/affordances-go/internal/crawl"
)

// aalOnlyReason is why a check of the Affordances protocol skips on a site
// that publishes AAL alone: information, not a failure.
const aalOnlyReason = "AAL only: the site has no Affordances site index or graph (its AAL is checked)"

// An aalPage is a page of a site that publishes AAL alone, as its HTML and
// the manifest locate its fragment (docs/protocol.md §30 and decision 7).
type aalPage struct {
	path   string
	htmlX  *exchange
	loc    aalpage.Source
	locErr error
	// fragXs are the fragments the page links and the manifest names for
	// it, fetched, each once.
	fragXs []*exchange
	// fragment is the one a consumer reads (inline, else linked, else the
	// manifest's), when it is valid; fragAt is its exchange, nil inline.
	fragment *aal.Fragment
	fragAt   *exchange
}

// discoverAAL walks a site that publishes AAL alone through its pages'
// HTML links, from start, and reads each page's fragments.
func (s *suite) discoverAAL(start []string) {
	s.bounded = crawl.Walk(start, s.opts.MaxPages, func(path string) []string {
		x := s.get(path, browserAccept, person)
		mt, _, _ := mime.ParseMediaType(x.header.Get("Content-Type"))
		if x.err != nil || x.status != 200 || mt != "text/html" {
			return nil
		}
		p := &aalPage{path: path, htmlX: x}
		p.loc, p.locErr = aalpage.Locate(s.base+path, x.body, s.manifest)
		if p.locErr != nil || p.loc.From != "" {
			s.readFragments(p)
			s.aalPages = append(s.aalPages, p)
		}
		u, _ := url.Parse(s.base + path)
		return crawl.HTMLLinks(u, x.body)
	})
}

// readFragments fetches the fragments of p and keeps the one a consumer
// reads, when valid.
func (s *suite) readFragments(p *aalPage) {
	if p.loc.Inline != "" && aal.ValidateFragment([]byte(p.loc.Inline)) == nil {
		var f aal.Fragment
		if json.Unmarshal([]byte(p.loc.Inline), &f) == nil {
			p.fragment = &f
		}
	}
	var urls []string // the fragment the page links or the manifest names, and the manifest's, each once
	if p.loc.URL != "" {
		urls = append(urls, p.loc.URL)
	}
	if p.loc.ManifestURL != "" && p.loc.ManifestURL != p.loc.URL {
		urls = append(urls, p.loc.ManifestURL)
	}
	for _, u := range urls {
		path, ok := strings.CutPrefix(u, s.base)
		if !ok || !strings.HasPrefix(path, "/") {
			p.fragXs = append(p.fragXs, &exchange{method: "GET", path: u, err: errOtherOrigin})
			continue
		}
		x := s.get(path, "application/json", person)
		p.fragXs = append(p.fragXs, x)
		var f aal.Fragment
		if p.fragment == nil && x.status == 200 && aal.ValidateFragment(x.body) == nil && json.Unmarshal(x.body, &f) == nil {
			p.fragment, p.fragAt = &f, x
		}
	}
}

// errOtherOrigin is the error of a fragment of another origin, which the
// suite does not fetch.
var errOtherOrigin = errors.New("the fragment is not of the site's origin; a consumer reads only the page's own")

// eachAALPage runs f on every page of an AAL-only site that publishes a
// fragment and fails at the first failure.
func eachAALPage(s *suite, f func(p *aalPage) (verdict, bool)) verdict {
	if len(s.aalPages) == 0 {
		return fail(s.manX, "no page found from / and the manifest's routes publishes an AAL fragment")
	}
	for _, p := range s.aalPages {
		if v, ok := f(p); !ok {
			return v
		}
	}
	return pass(nil, "%d pages, AAL only", len(s.aalPages))
}

// The AAL checks on a site that publishes AAL alone.

func aalOnlyManifestRoutes(s *suite) verdict {
	return eachAALPage(s, func(p *aalPage) (verdict, bool) {
		return fail(p.htmlX, "%s publishes a fragment (%s) and the manifest has no route for it", p.path, p.loc.From), p.loc.ManifestURL != ""
	})
}

func aalOnlyFragmentValid(s *suite) verdict {
	return eachAALPage(s, func(p *aalPage) (verdict, bool) {
		if p.locErr != nil {
			return fail(p.htmlX, "%s", aal.Visible(strings.TrimPrefix(p.locErr.Error(), "aalpage: "))), false
		}
		if p.loc.Inline != "" {
			if ps := aal.ValidateFragment([]byte(p.loc.Inline)); len(ps) > 0 {
				return fail(p.htmlX, "the fragment %s inlines: %s", p.path, problems(ps)), false
			}
		}
		for _, x := range p.fragXs {
			switch {
			case x.err != nil:
				return fail(x, "the fragment of %s: %v", p.path, x.err), false
			case x.status != 200:
				return fail(x, "the fragment of %s answered %d", p.path, x.status), false
			}
			if ps := aal.ValidateFragment(x.body); len(ps) > 0 {
				return fail(x, "%s", problems(ps)), false
			}
		}
		return verdict{}, true
	})
}

func aalOnlyFragmentPage(s *suite) verdict {
	return eachAALPage(s, func(p *aalPage) (verdict, bool) {
		if p.fragment == nil {
			return verdict{}, true
		}
		x := p.fragAt
		if x == nil {
			x = p.htmlX
		}
		return fail(x, "the fragment's page is %q for %s", p.fragment.Page, p.path), p.fragment.Page == pathOnly(p.path)
	})
}

// aalOnlySelectors checks each selector of a page's fragment against its
// HTML (docs/protocol.md decision 11): a page without a graph lists in its
// fragment what it offers, so each affordance is taken as available.
func aalOnlySelectors(s *suite) verdict {
	return eachAALPage(s, func(p *aalPage) (verdict, bool) {
		if p.fragment == nil {
			return verdict{}, true
		}
		doc, err := parseHTML(p.htmlX.body)
		if err != nil {
			return fail(p.htmlX, "HTML: %v", err), false
		}
		for _, a := range p.fragment.Affordances {
			inputs, err := doc.Inputs(a.Selector)
			if err != nil {
				return fail(p.htmlX, "page %s, affordance %q: %s", p.path, a.ID, aal.Visible(err.Error())), false
			}
			if ps := aal.CheckMatches(true, inputs); len(ps) > 0 {
				return fail(p.htmlX, "page %s, affordance %q, selector %s: %s", p.path, a.ID, aal.Visible(a.Selector), strings.Join(ps, "; ")), false
			}
		}
		return verdict{}, true
	})
}
