package affordances_test

import (
	"context"
	"html/template"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/affordances/affordances-go"
)

// lazySite counts its authentications and state loads.
func lazySite(t *testing.T) (*affordances.Site, *atomic.Int32, *atomic.Int32) {
	t.Helper()
	var auths, loads atomic.Int32
	site := affordances.NewSite(&affordances.SiteOptions{Authenticate: func(r *http.Request) (affordances.Principal, error) {
		auths.Add(1)
		if c, err := r.Cookie("who"); err == nil {
			return affordances.Principal{ID: c.Value}, nil
		}
		return affordances.Principal{}, nil
	}})
	rt := site.Route("/items/{id}", &affordances.RouteOptions{State: func(ctx context.Context, r *affordances.Request) (*affordances.State, error) {
		loads.Add(1)
		return &affordances.State{Entities: map[string]any{"id": r.Param("id"), "viewer": r.Principal.ID}}, nil
	}})
	affordances.AddAction(rt, &affordances.Action{Name: "touch", Description: "Touches the item.", Expose: affordances.ExposeSession}, noop)
	return site, &auths, &loads
}

// TestPageIsLazy: an HTML page whose handler asks for nothing costs no
// authentication and no state load (issue 26, issue 27: an app's own page
// pays nothing for being a route's); one that asks for everything, twice,
// pays one of each; the principal is the one the state was loaded for.
func TestPageIsLazy(t *testing.T) {
	for _, tc := range []struct {
		name         string
		page         func(pg *affordances.Page) string
		auths, loads int32
	}{
		{"asks for nothing", func(*affordances.Page) string { return "" }, 0, 0},
		{"asks who", func(pg *affordances.Page) string { return pg.Principal().ID }, 1, 0},
		{"asks for everything, twice", func(pg *affordances.Page) string {
			var out string
			for range 2 {
				st, _ := pg.State()
				out = pg.Principal().ID + st.Entities["viewer"].(string) + string(pg.Head())
				pg.Actions()
				pg.Form()
			}
			return out
		}, 1, 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			site, auths, loads := lazySite(t)
			var got string
			h := site.Handler(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				got = tc.page(affordances.PageFrom(r.Context()))
			}))
			r := httptest.NewRequest("GET", "/items/7", nil)
			r.Header.Set("Cookie", "who=alice")
			h.ServeHTTP(httptest.NewRecorder(), r)
			if auths.Load() != tc.auths || loads.Load() != tc.loads {
				t.Errorf("got %d authentications and %d loads, want %d and %d", auths.Load(), loads.Load(), tc.auths, tc.loads)
			}
			if tc.loads > 0 && got[:10] != "alicealice" {
				t.Errorf("the page read %.20q, want alice as the principal and the viewer", got)
			}
		})
	}
}

// TestPageHeaders: the site adds Vary: Accept and the Link headers to a
// page of a route whatever the app does to the header map first (sets,
// replaces, adds the same): merged with the app's, each once (issue 27);
// a page that failed, or a form that did, gets Vary but no Link; a path of
// no route, neither.
func TestPageHeaders(t *testing.T) {
	site, _, _ := lazySite(t)
	h := site.Handler(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Query().Get("app") {
		case "replaces":
			w.Header()["Vary"] = []string{"Cookie"}
			w.Header()["Link"] = []string{`</style.css>; rel="preload"`}
		case "adds":
			w.Header().Add("Vary", "Cookie, accept")
			w.Header().Add("Link", `<?affordances=1>; rel="affordances"`)
		case "fails":
			w.WriteHeader(http.StatusInternalServerError)
			return
		}
		w.Write([]byte("page"))
	}))
	const graph, llms = `<?affordances=1>; rel="affordances"`, `</llms.txt>; rel="alternate"; type="text/markdown"`
	for _, tc := range []struct {
		path       string
		vary, link []string
	}{
		{"/items/7", []string{"Accept"}, []string{graph, llms}},
		{"/items/7?app=replaces", []string{"Cookie", "Accept"}, []string{`</style.css>; rel="preload"`, `<?app=replaces&affordances=1>; rel="affordances"`, llms}},
		{"/items/7?app=adds", []string{"Cookie, accept"}, []string{graph, `<?app=adds&affordances=1>; rel="affordances"`, llms}},
		{"/items/7?app=fails", []string{"Accept"}, nil},
		{"/elsewhere", nil, nil},
	} {
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, httptest.NewRequest("GET", tc.path, nil))
		if vary, link := rec.Header().Values("Vary"), rec.Header().Values("Link"); !slices.Equal(vary, tc.vary) || !slices.Equal(link, tc.link) {
			t.Errorf("%s: got Vary %q and Link %q, want %q and %q", tc.path, vary, link, tc.vary, tc.link)
		}
	}

	// A form that failed is its page rendered again with the failure's
	// status, where the app wrote 200: it links no graph either. (Before
	// issue 36 the page wrapper saw the app's 200 and added the Links.)
	for _, tc := range []struct {
		name, form, cookie string
		status             int
	}{
		{"refused at step 2", "_action=touch", "", http.StatusUnauthorized},
	} {
		r := httptest.NewRequest("POST", "/items/7", strings.NewReader(tc.form))
		r.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		r.Header.Set("Sec-Fetch-Site", "same-origin")
		if tc.cookie != "" {
			r.Header.Set("Cookie", tc.cookie)
		}
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, r)
		if vary, link := rec.Header().Values("Vary"), rec.Header().Values("Link"); rec.Code != tc.status || !slices.Equal(vary, []string{"Accept"}) || link != nil {
			t.Errorf("a form %s: got %d, Vary %q and Link %q; want %d, Accept and no Link", tc.name, rec.Code, vary, link, tc.status)
		}
	}
}

// TestFormPostLoadsOnce: a person's form post authenticates once and loads
// the page's state at most twice, before and after the action; a failed
// one is rendered again from the state the call loaded, without loading
// or authenticating again (issue 26).
func TestFormPostLoadsOnce(t *testing.T) {
	for _, tc := range []struct {
		name         string
		who          string
		status       int
		auths, loads int32
	}{
		{"refused at step 2, rendered again", "", http.StatusUnauthorized, 1, 1},
		{"run, then redirected", "alice", http.StatusSeeOther, 1, 2},
	} {
		t.Run(tc.name, func(t *testing.T) {
			site, auths, loads := lazySite(t)
			h := site.Handler(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				pg := affordances.PageFrom(r.Context())
				pg.State()
				pg.Principal()
				w.Write([]byte(pg.Head()))
			}))
			r := httptest.NewRequest("POST", "/items/7", strings.NewReader("_action=touch"))
			r.Header.Set("Content-Type", "application/x-www-form-urlencoded")
			r.Header.Set("Sec-Fetch-Site", "same-origin")
			if tc.who != "" {
				r.Header.Set("Cookie", "who="+tc.who)
			}
			rec := httptest.NewRecorder()
			h.ServeHTTP(rec, r)
			if rec.Code != tc.status || auths.Load() != tc.auths || loads.Load() != tc.loads {
				t.Errorf("got %d, %d authentications and %d loads; want %d, %d and %d", rec.Code, auths.Load(), loads.Load(), tc.status, tc.auths, tc.loads)
			}
		})
	}
}

// TestHeadCarriesTheNonce: every script element Page.Head writes (the AAL
// fragment, the WebMCP tools' data and the script that registers them)
// carries the nonce the app set, so a strict nonce policy runs them
// (issue 27, clash 4); without one, none has a nonce attribute.
func TestHeadCarriesTheNonce(t *testing.T) {
	site, _, _ := lazySite(t)
	for _, nonce := range []string{"", `r4nd0m+/=`, `"><x`} {
		var head string
		h := site.Handler(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			pg := affordances.PageFrom(r.Context())
			if nonce != "" {
				pg.SetNonce(nonce)
			}
			head = string(pg.Head())
		}))
		r := httptest.NewRequest("GET", "/items/7", nil)
		r.Header.Set("Cookie", "who=alice")
		h.ServeHTTP(httptest.NewRecorder(), r)
		scripts := strings.Count(head, "<script")
		if scripts != 3 {
			t.Fatalf("nonce %q: %d script elements in %s, want 3", nonce, scripts, head)
		}
		want := `<script nonce="` + template.HTMLEscapeString(nonce) + `"`
		if nonce == "" {
			if strings.Contains(head, "nonce=") {
				t.Errorf("no nonce set: the head has one: %s", head)
			}
			continue
		}
		if got := strings.Count(head, want); got != scripts {
			t.Errorf("nonce %q: %d of %d script elements carry it: %s", nonce, got, scripts, head)
		}
	}
	var nilPage *affordances.Page
	nilPage.SetNonce("x") // a request the site did not hand on: nothing to do
}

// TestSetState: a handler that loaded the page's data itself hands it to
// the page, whose head, actions and form then need no load of their own
// (issue 38: the head doubled a retrofit's SQL statements); once the
// state is loaded, SetState changes nothing.
func TestSetState(t *testing.T) {
	site, _, loads := lazySite(t)
	var head string
	var actions int
	h := site.Handler(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		pg := affordances.PageFrom(r.Context())
		pg.SetState(&affordances.State{Entities: map[string]any{"id": "7", "viewer": "alice"}})
		head = string(pg.Head())
		actions = len(pg.Actions())
		st, _ := pg.State()
		pg.SetState(&affordances.State{Entities: map[string]any{"id": "other"}})
		if again, _ := pg.State(); again != st {
			t.Error("SetState after the state was set changed it")
		}
	}))
	r := httptest.NewRequest("GET", "/items/7", nil)
	r.Header.Set("Cookie", "who=alice")
	h.ServeHTTP(httptest.NewRecorder(), r)
	if loads.Load() != 0 || head == "" || actions != 1 {
		t.Errorf("got %d loads, a head of %d bytes and %d actions; want no load, the head and the page's one action", loads.Load(), len(head), actions)
	}
}

// TestSetPrincipal: an app whose own session middleware found who asks
// says so to the page, and its head, actions and state are theirs with
// no call to the site's Authenticate (issue 38: a retrofit read its
// session twice per view); a call is authenticated by the site all the
// same, and once the principal is known SetPrincipal changes nothing.
func TestSetPrincipal(t *testing.T) {
	site, auths, loads := lazySite(t)
	var viewer, method string
	var actions int
	session := func(next http.Handler) http.Handler { // the app's middleware
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if c, err := r.Cookie("who"); err == nil {
				affordances.PageFrom(r.Context()).SetPrincipal(affordances.Principal{ID: c.Value})
			}
			next.ServeHTTP(w, r)
		})
	}
	h := site.Handler(session(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		pg := affordances.PageFrom(r.Context())
		st, _ := pg.State()
		viewer, _ = st.Entities["viewer"].(string)
		actions = len(pg.Actions())
		method = string(pg.Principal().Method)
		pg.SetPrincipal(affordances.Principal{ID: "mallory"})
		if pg.Principal().ID != "alice" {
			t.Error("SetPrincipal after the principal was known changed it")
		}
	})))
	r := httptest.NewRequest("GET", "/items/7", nil)
	r.Header.Set("Cookie", "who=alice")
	h.ServeHTTP(httptest.NewRecorder(), r)
	if auths.Load() != 0 || loads.Load() != 1 || viewer != "alice" || actions != 1 || method != string(affordances.AuthCookie) {
		t.Errorf("got %d authentications, %d loads, the state of %q (%s) and %d actions; want none, one, alice's by cookie and the page's action", auths.Load(), loads.Load(), viewer, method, actions)
	}
	if res := do(t, h, post("/items/7", `{"action":"touch"}`, "Cookie: who=alice", "Origin: http://shop.test")); !res.delta.OK || auths.Load() != 1 {
		t.Errorf("a call: got %d %s after %d authentications, want ok after the site's one", res.status, res.body, auths.Load())
	}
}
