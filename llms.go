package affordances

import (
	"fmt"
	"net/http"
	"net/url"
	"strings"

	"github.com/affordances/affordances-go/aal"
)

// LLMsTxtPath is where [Site.Handler] serves the index in Markdown (llmstxt.org).
const LLMsTxtPath = "/llms.txt"

// serveLLMsTxt answers GET /llms.txt with the site index as the requester
// sees it, in Markdown: the site's name and what it is, how an agent reads
// and operates its pages, then a section per route with its description,
// its actions and, for a page the requester can open, a link to its graph.
func (s *Site) serveLLMsTxt(w http.ResponseWriter, r *http.Request) {
	p, err := s.authenticate(r)
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	origin := s.origin(r)
	name := s.opts.Name
	if name == "" {
		name = r.Host
	}
	var b strings.Builder
	fmt.Fprintf(&b, "# %s\n\n", mdLine(name))
	if s.opts.Description != "" {
		fmt.Fprintf(&b, "> %s\n\n", mdLine(s.opts.Description))
	}
	fmt.Fprintf(&b, "Every page below answers its own URL with HTML for people and, asked with `Accept: %s` (or `?affordances=1`), "+
		"with a JSON graph for agents: what the page shows (entities), what can be done there (actions) and where to go next (nav). "+
		"An action is called by POSTing `{\"action\": NAME, \"input\": {...}}` to the page with `Content-Type: %s`; the answer is a delta, only what changed. "+
		"A `confirm` action first answers with a summary for the person to approve.\n\n", MediaType, MediaType)
	fmt.Fprintf(&b, "- [Site index](%s%s): every route and its actions, as JSON\n", origin, IndexPath)
	fmt.Fprintf(&b, "- [AAL manifest](%s%s): each page's affordances with their risk (trust, cost, whether they can be undone)\n", origin, aal.ManifestPath)
	if len(s.opts.Auth) > 0 {
		auth := make([]string, len(s.opts.Auth))
		for i, a := range s.opts.Auth {
			auth[i] = string(a)
		}
		fmt.Fprintf(&b, "- Authentication: %s\n", strings.Join(auth, ", "))
	}
	for _, rt := range s.routes {
		section := []string{"## " + rt.pattern} // paragraphs
		if rt.opts.Description != "" {
			section = append(section, mdLine(rt.opts.Description))
		}
		var list []string
		if !strings.Contains(rt.pattern, "[") {
			// A page without parameters: linked when it opens for this
			// requester.
			own, _ := s.own(rt.pattern)
			page := withURL(r, func(u *url.URL) { u.Path, u.RawPath, u.RawQuery = own, "", "" })
			if _, err := s.load(r.Context(), page, rt, nil, p); err == nil {
				list = append(list, fmt.Sprintf("- [Graph of %s](%s%s?affordances=1)", rt.pattern, origin, rt.pattern))
			}
		}
		req := &Request{HTTP: r, Principal: p, route: rt}
		for _, a := range rt.actions {
			if !a.listedFor(req) {
				continue
			}
			kind := string(a.Expose)
			if a.ReadOnly {
				kind += ", read-only"
			}
			list = append(list, fmt.Sprintf("- `%s` (%s): %s", a.Name, kind, mdLine(a.Description)))
		}
		if len(list) > 0 {
			section = append(section, strings.Join(list, "\n"))
		}
		fmt.Fprintf(&b, "\n%s\n", strings.Join(section, "\n\n"))
	}
	h := w.Header()
	h.Set("Content-Type", "text/markdown; charset=utf-8")
	h.Set("Cache-Control", "private, no-cache")
	h.Set("Vary", "Cookie, Authorization")
	h.Set("X-Content-Type-Options", "nosniff")
	if r.Method != http.MethodHead {
		w.Write([]byte(b.String()))
	}
}

// mdLine is site text on one Markdown line: no line breaks, and
// invisible or direction characters shown visibly ([aal.Visible]).
func mdLine(s string) string {
	return aal.Visible(strings.Join(strings.Fields(s), " "))
}
