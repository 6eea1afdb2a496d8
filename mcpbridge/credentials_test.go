package mcpbridge_test

import (
	"context"
	"net/http"
	"net/http/cookiejar"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync"
	"testing"

	affordances "github.com/affordances/affordances-go"
	"github.com/affordances/affordances-go/aal"
	"github.com/affordances/affordances-go/mcpbridge"
)

// listener is a site that records the credentials each request carried.
type listener struct {
	url string

	mu      sync.Mutex
	auth    []string // the Authorization headers received, "" for none
	cookies []string // the Cookie headers received, "" for none
	runs    int
}

func (l *listener) record() (auth, cookies []string, runs int) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return append([]string(nil), l.auth...), append([]string(nil), l.cookies...), l.runs
}

// newListener serves a small site: public actions note, and discard, which
// deletes (destructive: the gate allows it only under a grant). Any URL
// with ?redirect=URL redirects there.
func newListener(t *testing.T) *listener {
	t.Helper()
	l := &listener{}
	site := affordances.NewSite(&affordances.SiteOptions{Authenticate: func(r *http.Request) (affordances.Principal, error) {
		tok, _ := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer ")
		return affordances.Principal{ID: tok}, nil // any token is someone's, none is anonymous
	}})
	rt := site.Route("/", nil)
	affordances.AddAction(rt, &affordances.Action{Name: "note", Description: "Notes something.", Expose: affordances.ExposePublic},
		func(context.Context, *affordances.Request, struct{}) (struct{}, error) {
			l.mu.Lock()
			l.runs++
			l.mu.Unlock()
			return struct{}{}, nil
		})
	affordances.AddAction(rt, &affordances.Action{Name: "discard", Description: "Discards the draft.", Expose: affordances.ExposePublic,
		AAL: &aal.Meta{Action: aal.Delete}},
		func(context.Context, *affordances.Request, struct{}) (struct{}, error) {
			l.mu.Lock()
			l.runs++
			l.mu.Unlock()
			return struct{}{}, nil
		})
	h := site.Handler(nil)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		l.mu.Lock()
		l.auth = append(l.auth, r.Header.Get("Authorization"))
		l.cookies = append(l.cookies, r.Header.Get("Cookie"))
		l.mu.Unlock()
		if to := r.URL.Query().Get("redirect"); to != "" {
			http.Redirect(w, r, to, http.StatusFound)
			return
		}
		h.ServeHTTP(w, r)
	}))
	t.Cleanup(srv.Close)
	l.url = srv.URL
	return l
}

// TestCredentialsStayWithTheSites: the person's token, cookies and grants
// reach the sites they configured, and none of them an origin the model
// names (issue 14: --token alice-token reached any listener the model
// named, and a grant without an origin applied to it).
func TestCredentialsStayWithTheSites(t *testing.T) {
	home, elsewhere := newListener(t), newListener(t)
	jar, _ := cookiejar.New(nil)
	for _, l := range []*listener{home, elsewhere} {
		u, _ := url.Parse(l.url)
		jar.SetCookies(u, []*http.Cookie{{Name: "session", Value: "alice-session"}})
	}
	destructive, err := aal.ParseGrant("destructive")
	if err != nil {
		t.Fatal(err)
	}
	destructiveElsewhere, err := aal.ParseGrant("destructive@" + elsewhere.url)
	if err != nil {
		t.Fatal(err)
	}
	p := &person{answer: "decline"}
	cs := connect(t, mcpbridge.NewServer(&mcpbridge.Options{
		Sites:      []string{home.url + "/any/page"},
		Token:      "alice-token",
		Grants:     []aal.Grant{destructive, destructiveElsewhere},
		HTTPClient: &http.Client{Jar: jar},
	}), p)

	decision := func(page map[string]any, action string) any {
		for _, a := range page["actions"].([]any) {
			if a := a.(map[string]any); a["name"] == action {
				return a["risk"].(map[string]any)["decision"]
			}
		}
		return nil
	}
	for _, tc := range []struct {
		name      string
		l         *listener
		wantAuth  string
		wantCreds string
		wantGate  string // the gate's decision on discard
	}{
		{"configured site", home, "Bearer alice-token", "token: sent, a configured site", "allow"},
		{"unconfigured origin", elsewhere, "", "none: not a configured site", "ask"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			idx, res := call(t, cs, "site_index", map[string]any{"origin": tc.l.url})
			if res.IsError || !strings.HasPrefix(idx["credentials"].(string), tc.wantCreds) {
				t.Errorf("site_index: got %v (%s), want credentials %q", idx["credentials"], text(res), tc.wantCreds)
			}
			page, res := call(t, cs, "fetch_affordances", map[string]any{"url": tc.l.url + "/"})
			if res.IsError || !strings.HasPrefix(page["credentials"].(string), tc.wantCreds) {
				t.Errorf("fetch_affordances: got %v (%s), want credentials %q", page["credentials"], text(res), tc.wantCreds)
			}
			if got := decision(page, "discard"); got != tc.wantGate {
				t.Errorf("discard: got decision %v, want %s", got, tc.wantGate)
			}
			out, res := call(t, cs, "execute_affordance", map[string]any{"url": tc.l.url + "/", "action": "note"})
			if res.IsError || out["ok"] != true || !strings.HasPrefix(out["credentials"].(string), tc.wantCreds) {
				t.Errorf("execute_affordance note: got %v (%s), want ok and credentials %q", out, text(res), tc.wantCreds)
			}
			auth, cookies, runs := tc.l.record()
			if len(auth) < 3 || runs != 1 {
				t.Fatalf("the listener got %d requests and %d runs, want at least 3 and 1", len(auth), runs)
			}
			for i := range auth {
				if auth[i] != tc.wantAuth {
					t.Errorf("request %d: got Authorization %q, want %q", i, auth[i], tc.wantAuth)
				}
				if wantCookie := tc.wantAuth != ""; strings.Contains(cookies[i], "alice-session") != wantCookie {
					t.Errorf("request %d: got Cookie %q, want the person's session cookie: %v", i, cookies[i], wantCookie)
				}
			}
		})
	}

	// On the configured site the grant without an origin lets discard run
	// unasked. Off-site no grant applies, not even one naming the origin:
	// the gate asks the person, who declines, and nothing runs.
	out, res := call(t, cs, "execute_affordance", map[string]any{"url": home.url + "/", "action": "discard"})
	if _, _, runs := home.record(); res.IsError || out["ok"] != true || runs != 2 {
		t.Errorf("discard on the configured site: got %v (%s) and %d runs, want ok, run unasked", out, text(res), runs)
	}
	_, res = call(t, cs, "execute_affordance", map[string]any{"url": elsewhere.url + "/", "action": "discard"})
	if _, _, runs := elsewhere.record(); !res.IsError || !strings.Contains(text(res), "did not approve") || runs != 1 {
		t.Errorf("discard off-site: got %s and %d runs, want the person asked, declining, and nothing more run", text(res), runs)
	}
	if len(p.read) != 1 || !strings.Contains(p.read[0], elsewhere.url) {
		t.Errorf("the person read %q, want once the question about %s", p.read, elsewhere.url)
	}
	auth, cookies, _ := elsewhere.record()
	for i := range auth {
		if auth[i] != "" || cookies[i] != "" {
			t.Errorf("off-site request %d: got Authorization %q and Cookie %q, want neither", i, auth[i], cookies[i])
		}
	}
}

// TestTokensPerSite: a token of Tokens goes to its own origin only, and
// its origin is a configured site.
func TestTokensPerSite(t *testing.T) {
	a, b := newListener(t), newListener(t)
	cs := connect(t, mcpbridge.NewServer(&mcpbridge.Options{Sites: []string{a.url}, Token: "a-token", Tokens: map[string]string{b.url: "b-token"}}), nil)
	for _, tc := range []struct {
		l    *listener
		want string
	}{{a, "Bearer a-token"}, {b, "Bearer b-token"}} {
		if _, res := call(t, cs, "fetch_affordances", map[string]any{"url": tc.l.url + "/"}); res.IsError {
			t.Fatalf("fetch_affordances %s: %s", tc.l.url, text(res))
		}
		auth, _, _ := tc.l.record()
		for _, got := range auth {
			if got != tc.want {
				t.Errorf("%s: got Authorization %q, want %q", tc.l.url, got, tc.want)
			}
		}
	}
}

func TestSiteOrigin(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"https://Shop.example/products?q=1", "https://shop.example"},
		{"HTTPS://shop.example:443", "https://shop.example"},
		{"http://127.0.0.1:80/", "http://127.0.0.1"},
		{"http://127.0.0.1:8080", "http://127.0.0.1:8080"},
		{"https://shop.example:80", "https://shop.example:80"},
		{"shop.example", ""},
		{"ftp://shop.example", ""},
		{"https://alice@shop.example", ""},
		{"https://shop.example:0443", "https://shop.example"},
		{"https://BÜCHER.example", "https://xn--bcher-kva.example"},
		{"https://shop.example:70000", ""},
	} {
		t.Run(tc.in, func(t *testing.T) {
			got, err := mcpbridge.SiteOrigin(tc.in)
			if got != tc.want || (err == nil) != (tc.want != "") {
				t.Errorf("got %q, %v, want %q", got, err, tc.want)
			}
		})
	}
}

// TestCredentialsDoNotFollowRedirects: a configured site that redirects to
// another origin (the same host on another port, which net/http would
// send the token to) is not followed with the person's credentials.
func TestCredentialsDoNotFollowRedirects(t *testing.T) {
	home, elsewhere := newListener(t), newListener(t)
	cs := connect(t, mcpbridge.NewServer(&mcpbridge.Options{Sites: []string{home.url}, Token: "alice-token"}), nil)
	_, res := call(t, cs, "fetch_affordances", map[string]any{"url": home.url + "/?redirect=" + url.QueryEscape(elsewhere.url+"/")})
	if !res.IsError || !strings.Contains(text(res), "another origin") {
		t.Errorf("fetch_affordances: got %s, want an error saying the redirect to another origin is not followed", text(res))
	}
	if auth, _, _ := elsewhere.record(); len(auth) != 0 {
		t.Errorf("the other origin got %q, want no request", auth)
	}
	// Within the site, a redirect is followed with the token.
	_, res = call(t, cs, "fetch_affordances", map[string]any{"url": home.url + "/?redirect=/"})
	if auth, _, _ := home.record(); res.IsError || auth[len(auth)-1] != "Bearer alice-token" {
		t.Errorf("a redirect within the site: got %s, Authorization %q, want the page with the token", text(res), auth)
	}
}
