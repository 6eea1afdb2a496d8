package plain_test

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/cookiejar"
	"net/http/httptest"
	"net/url"
	"reflect"
	"regexp"
	"strings"
	"testing"

	"github.com/affordances/affordances-go/aal"
	"github.com/affordances/affordances-go/examples/plain"
	"github.com/affordances/affordances-go/internal/htmlcheck"
)

func start(t *testing.T) (*plain.Site, *httptest.Server) {
	t.Helper()
	s := plain.New(nil)
	srv := httptest.NewServer(s.Handler())
	t.Cleanup(srv.Close)
	return s, srv
}

func get(t *testing.T, hc *http.Client, u string) (int, string, string) {
	t.Helper()
	res, err := hc.Get(u)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	b, err := io.ReadAll(res.Body)
	if err != nil {
		t.Fatal(err)
	}
	return res.StatusCode, res.Header.Get("Content-Type"), string(b)
}

// TestAAL: the manifest and every fragment it names are valid AAL 0.1
// (docs/protocol.md decision 7); the manifest's origin is the one the site
// is served at; each page links its own fragment or inlines it (the
// contact page inlines the same affordances its file has); and on each
// page every affordance's selector matches as docs/protocol.md decision 11 says.
func TestAAL(t *testing.T) {
	_, srv := start(t)
	status, ctype, body := get(t, srv.Client(), srv.URL+plain.ManifestPath)
	if status != 200 || !strings.HasPrefix(ctype, "application/json") {
		t.Fatalf("GET %s: %d %s, want 200 application/json", plain.ManifestPath, status, ctype)
	}
	if kind, problems := aal.Validate([]byte(body)); kind != aal.KindManifest || problems != nil {
		t.Fatalf("the manifest: kind %q, problems %v; want a valid manifest", kind, problems)
	}
	var m aal.Manifest
	if err := json.Unmarshal([]byte(body), &m); err != nil {
		t.Fatal(err)
	}
	if m.Site.Origin != srv.URL {
		t.Errorf("site.origin is %q, want %q", m.Site.Origin, srv.URL)
	}
	if len(m.Routes) != 5 {
		t.Errorf("the manifest lists %d routes, want 5", len(m.Routes))
	}
	link := regexp.MustCompile(`<link rel="agent-affordances" href="([^"]+)">`)
	inline := regexp.MustCompile(`(?s)<script type="application/aal\+json">(.*?)</script>`)
	for _, r := range m.Routes {
		t.Run(r.Route, func(t *testing.T) {
			status, ctype, frag := get(t, srv.Client(), srv.URL+r.Fragment)
			if status != 200 || !strings.HasPrefix(ctype, "application/json") {
				t.Fatalf("GET %s: %d %s, want 200 application/json", r.Fragment, status, ctype)
			}
			if kind, problems := aal.Validate([]byte(frag)); kind != aal.KindFragment || problems != nil {
				t.Fatalf("%s: kind %q, problems %v; want a valid fragment", r.Fragment, kind, problems)
			}
			var f aal.Fragment
			json.Unmarshal([]byte(frag), &f)
			if f.Page != r.Route {
				t.Errorf("%s: page %q, want %q", r.Fragment, f.Page, r.Route)
			}
			_, _, page := get(t, srv.Client(), srv.URL+r.Route+"?q=garden")
			switch l, in := link.FindStringSubmatch(page), inline.FindStringSubmatch(page); {
			case l != nil && l[1] != r.Fragment:
				t.Errorf("the page links %s, want %s", l[1], r.Fragment)
			case l == nil && in == nil:
				t.Error("the page neither links nor inlines its fragment")
			case in != nil:
				var inlined aal.Fragment
				if problems := aal.ValidateFragment([]byte(in[1])); problems != nil {
					t.Fatalf("the inline fragment: %v", problems)
				}
				json.Unmarshal([]byte(in[1]), &inlined)
				if !reflect.DeepEqual(inlined, f) {
					t.Errorf("the inline fragment is %+v, the file %+v", inlined, f)
				}
			}
			doc, err := htmlcheck.Parse([]byte(page))
			if err != nil {
				t.Fatal(err)
			}
			for _, a := range f.Affordances {
				inputs, err := doc.Inputs(a.Selector)
				if err != nil {
					t.Fatal(err)
				}
				if problems := aal.CheckMatches(true, inputs); problems != nil {
					t.Errorf("%s (%s): %v", a.ID, a.Selector, problems)
				}
			}
		})
	}
	if status, _, _ := get(t, srv.Client(), srv.URL+"/.well-known/agent-affordances/"); status != 404 {
		t.Errorf("the fragments' directory: %d, want 404", status)
	}
}

// TestForms: each form handler receives what a browser posts, records it
// as it arrived, and answers as a plain site does: 303 to the next page,
// or an error page that changes nothing.
func TestForms(t *testing.T) {
	s, srv := start(t)
	jar, _ := cookiejar.New(nil)
	hc := &http.Client{Jar: jar}
	post := func(path string, form url.Values) (int, string) {
		t.Helper()
		res, err := hc.PostForm(srv.URL+path, form)
		if err != nil {
			t.Fatal(err)
		}
		defer res.Body.Close()
		b, _ := io.ReadAll(res.Body)
		return res.StatusCode, res.Request.URL.Path + " " + string(b)
	}
	for _, tc := range []struct {
		path string
		form url.Values
		code int
		page string // the path the answer ends on, and a text in it
	}{
		{"/notes", url.Values{"title": {"Tea"}, "body": {"Green, at four."}}, 200, "/notes Green, at four."},
		{"/notes", url.Values{"title": {""}, "body": {"no title"}}, 400, "/notes A note needs a title"},
		{"/contact", url.Values{"name": {"Bo"}, "email": {"bo@example.com"}, "topic": {"feedback"}, "message": {"Hello"}}, 200, "/contact/sent We received your message"},
		{"/contact", url.Values{"name": {"Bo"}, "email": {"bo@example.com"}}, 400, "/contact Fill in your name"},
		{"/newsletter", url.Values{"email": {"bo@example.com"}}, 200, "/newsletter/thanks You are on the list"},
		{"/login", url.Values{"email": {plain.DemoEmail}, "password": {"wrong"}}, 401, "/login Wrong email or password"},
		{"/login", url.Values{"email": {plain.DemoEmail}, "password": {plain.DemoPassword}}, 200, "/notes Signed in as " + plain.DemoEmail},
		{"/notes", url.Values{"title": {"Signed"}, "body": {"By Ada."}}, 200, "/notes by " + plain.DemoEmail},
		{"/notes/delete", url.Values{"id": {"n-1"}}, 200, "/notes Ideas for the garden"},
		{"/notes/delete", url.Values{"id": {"n-99"}}, 404, "/notes/delete There is no note n-99."},
	} {
		code, page := post(tc.path, tc.form)
		path, text, _ := strings.Cut(tc.page, " ")
		if code != tc.code || !strings.HasPrefix(page, path+" ") || !strings.Contains(page, text) {
			t.Errorf("POST %s %v: %d, ended on %.60q; want %d, %s with %q", tc.path, tc.form, code, page, tc.code, path, text)
		}
	}
	get(t, hc, srv.URL+"/search?q=garden")
	got := s.Received()
	if len(got) != 11 {
		t.Fatalf("received %d forms, want 11: %+v", len(got), got)
	}
	if r := got[0]; r.Method != "POST" || r.Path != "/notes" || !reflect.DeepEqual(r.Form, url.Values{"title": {"Tea"}, "body": {"Green, at four."}}) || r.User != "" {
		t.Errorf("the first form: %+v, want the note Tea from nobody signed in", r)
	}
	if r := got[7]; r.User != plain.DemoEmail {
		t.Errorf("the note added signed in: user %q, want %q", r.User, plain.DemoEmail)
	}
	if r := got[10]; r.Method != "GET" || r.Path != "/search" || !reflect.DeepEqual(r.Form, url.Values{"q": {"garden"}}) {
		t.Errorf("the search: %+v, want GET /search q=garden", r)
	}
	var titles []string
	for _, n := range s.Notes() {
		titles = append(titles, n.Title)
	}
	if want := []string{"Ideas for the garden", "Tea", "Signed"}; !reflect.DeepEqual(titles, want) {
		t.Errorf("the notes: %q, want %q", titles, want)
	}
	if status, _, _ := get(t, hc, srv.URL+"/nowhere"); status != 404 {
		t.Errorf("GET /nowhere: %d, want 404", status)
	}
}
