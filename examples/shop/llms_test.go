package shop_test

import (
	"encoding/json"
	"net/http"
	"regexp"
	"strings"
	"testing"

	affordances "github.com/affordances/affordances-go"
	"github.com/affordances/affordances-go/examples/shop"
)

// mdLink is a Markdown link: its text and its URL.
var mdLink = regexp.MustCompile(`\[([^\]]*)\]\(([^)\s]+)\)`)

// llmsSection returns the section of route in an llms.txt, from its
// heading to the next, and whether there is one.
func llmsSection(text, route string) (string, bool) {
	_, after, ok := strings.Cut(text, "\n## "+route+"\n")
	if !ok {
		return "", false
	}
	section, _, _ := strings.Cut(after, "\n## ")
	return section, true
}

// TestLLMsTxt: /llms.txt, for a visitor and for alice signed in, is
// Markdown that opens with the shop's name and what it is, then has a
// section for each route of the site index as the same requester reads it,
// with the route's description and every action the index lists there;
// each page without parameters that opens for the requester has the link
// to its graph, and every link in it answers 200 to the same requester.
func TestLLMsTxt(t *testing.T) {
	_, srv := newShop(t)
	alice := newBrowser(t, srv)
	alice.signIn(shop.DemoEmail, shop.DemoPassword)
	for _, who := range []struct {
		name string
		a    *agent
	}{{"a visitor", newAgent(t, srv, "")}, {"alice", alice}} {
		resp, body := who.a.do(http.MethodGet, affordances.LLMsTxtPath, nil, nil)
		if resp == nil || resp.StatusCode != http.StatusOK || resp.Header.Get("Content-Type") != "text/markdown; charset=utf-8" {
			t.Fatalf("%s: GET /llms.txt: got %v, want 200 text/markdown", who.name, resp)
		}
		text := string(body)
		t.Logf("/llms.txt for %s:\n%s", who.name, text)
		if want := "# Demo Shop\n\n> A small demo shop of clothes, bags and homeware"; !strings.HasPrefix(text, want) {
			t.Errorf("%s: /llms.txt opens with %q, want %q", who.name, text[:min(len(text), 80)], want)
		}

		_, ib := who.a.do(http.MethodGet, affordances.IndexPath, http.Header{"Accept": {affordances.MediaType}}, nil)
		var index affordances.SiteIndex
		if err := json.Unmarshal(ib, &index); err != nil {
			t.Fatal(err)
		}
		if got := strings.Count(text, "\n## "); got != len(index.Routes) {
			t.Errorf("%s: /llms.txt has %d sections, want one for each of the index's %d routes", who.name, got, len(index.Routes))
		}
		for _, r := range index.Routes {
			section, ok := llmsSection(text, r.Route)
			if !ok {
				t.Errorf("%s: /llms.txt has no section for %s", who.name, r.Route)
				continue
			}
			if !strings.Contains(section, "\n"+r.Description+"\n") {
				t.Errorf("%s: the section of %s does not say %q:\n%s", who.name, r.Route, r.Description, section)
			}
			for _, a := range r.Actions {
				if !strings.Contains(section, "- `"+a.Name+"` (") || !strings.Contains(section, a.Description) {
					t.Errorf("%s: the section of %s does not list %s as the index does (%q):\n%s", who.name, r.Route, a.Name, a.Description, section)
				}
			}
			if strings.Contains(r.Route, "[") {
				continue
			}
			page, _ := who.a.page(r.Route)
			linked := strings.Contains(section, "[Graph of "+r.Route+"]("+srv.URL+r.Route+"?affordances=1)")
			if opens := page != nil && page.StatusCode == http.StatusOK; linked != opens {
				t.Errorf("%s: %s opens: %v; its graph is linked: %v", who.name, r.Route, opens, linked)
			}
		}

		links := mdLink.FindAllStringSubmatch(text, -1)
		if len(links) < 3 {
			t.Errorf("%s: /llms.txt has %d links, want the index, the AAL manifest and the graphs", who.name, len(links))
		}
		for _, l := range links {
			path, ok := strings.CutPrefix(l[2], srv.URL)
			if !ok {
				t.Errorf("%s: the link %q leaves the shop", who.name, l[0])
				continue
			}
			if resp, _ := who.a.do(http.MethodGet, path, nil, nil); resp == nil || resp.StatusCode != http.StatusOK {
				t.Errorf("%s: the link %s answers %v, want 200", who.name, l[0], resp)
			}
		}
	}
}
