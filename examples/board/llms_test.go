package main

import (
	"encoding/json"
	"io"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"testing"

	affordances "github.com/affordances/affordances-go"
)

// mdLink is a Markdown link: its text and its URL.
var mdLink = regexp.MustCompile(`\[([^\]]*)\]\(([^)\s]+)\)`)

// get GETs path with the client's credentials, asking for accept when
// set, and returns the status and the body.
func (c *client) get(path, accept string) (int, string) {
	c.t.Helper()
	req, _ := http.NewRequestWithContext(c.t.Context(), http.MethodGet, c.base+path, nil)
	if accept != "" {
		req.Header.Set("Accept", accept)
	}
	if c.token != "" {
		req.Header.Set("Authorization", "Bearer "+c.token)
	}
	resp, err := c.hc.Do(req)
	if err != nil {
		c.t.Fatal(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		c.t.Fatal(err)
	}
	return resp.StatusCode, string(b)
}

// TestLLMsTxt: /llms.txt, for nobody and for alice signed in through the
// form, is Markdown that opens with the board's name and what it is, then
// has a section for each route of the site index as the same requester
// reads it, with the route's description and every action the index
// lists there; every link in it answers 200 to the same requester.
func TestLLMsTxt(t *testing.T) {
	_, srv := testBoard(t)
	alice := newClient(t, srv, "")
	if resp, _ := alice.post("/login", url.Values{"_action": {"signIn"}, "email": {demoEmail}, "password": {demoPassword}}); resp.StatusCode != http.StatusSeeOther {
		t.Fatalf("alice signs in: got %d, want 303", resp.StatusCode)
	}
	for _, who := range []struct {
		name string
		c    *client
	}{{"nobody", newClient(t, srv, "")}, {"alice", alice}} {
		status, text := who.c.get(affordances.LLMsTxtPath, "")
		if status != http.StatusOK {
			t.Fatalf("%s: GET /llms.txt: got %d, want 200", who.name, status)
		}
		t.Logf("/llms.txt for %s:\n%s", who.name, text)
		if want := "# Team Board\n\n> A demo task board"; !strings.HasPrefix(text, want) {
			t.Errorf("%s: /llms.txt opens with %q, want %q", who.name, text[:min(len(text), 60)], want)
		}
		_, body := who.c.get(affordances.IndexPath, affordances.MediaType)
		var index affordances.SiteIndex
		if err := json.Unmarshal([]byte(body), &index); err != nil {
			t.Fatal(err)
		}
		if got := strings.Count(text, "\n## "); got != len(index.Routes) {
			t.Errorf("%s: /llms.txt has %d sections, want one for each of the index's %d routes", who.name, got, len(index.Routes))
		}
		for _, r := range index.Routes {
			_, section, ok := strings.Cut(text, "\n## "+r.Route+"\n")
			section, _, _ = strings.Cut(section, "\n## ")
			if !ok || !strings.Contains(section, "\n"+r.Description+"\n") {
				t.Errorf("%s: /llms.txt has no section for %s saying %q", who.name, r.Route, r.Description)
				continue
			}
			for _, a := range r.Actions {
				if !strings.Contains(section, "- `"+a.Name+"` (") || !strings.Contains(section, a.Description) {
					t.Errorf("%s: the section of %s does not list %s as the index does:\n%s", who.name, r.Route, a.Name, section)
				}
			}
		}
		links := mdLink.FindAllStringSubmatch(text, -1)
		if len(links) < 4 {
			t.Errorf("%s: /llms.txt has %d links, want the index, the AAL manifest and the graphs of /boards and /login", who.name, len(links))
		}
		for _, l := range links {
			path, ok := strings.CutPrefix(l[2], srv.URL)
			if !ok {
				t.Errorf("%s: the link %q leaves the board", who.name, l[0])
				continue
			}
			if status, _ := who.c.get(path, ""); status != http.StatusOK {
				t.Errorf("%s: the link %s answers %d, want 200", who.name, l[0], status)
			}
		}
	}
}
