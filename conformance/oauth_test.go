package conformance_test

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"slices"
	"strings"
	"testing"

	affordances "github.com/affordances/affordances-go"
	"github.com/affordances/affordances-go/aal"
	"github.com/affordances/affordances-go/conformance"
	"github.com/affordances/affordances-go/oauth"
)

// oauthSite serves a small site that takes its own OAuth server's tokens
// (package oauth): a page with a read-only action, /mcp behind Protect,
// alice signed in by the cookie who=alice. wrap, when set, breaks it.
func oauthSite(t *testing.T, wrap func(http.Handler) http.Handler) string {
	t.Helper()
	var h http.Handler
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { h.ServeHTTP(w, r) }))
	t.Cleanup(srv.Close)
	app := func(r *http.Request) (affordances.Principal, error) {
		if c, err := r.Cookie("who"); err == nil {
			return affordances.Principal{ID: c.Value}, nil
		}
		if r.Header.Get("Authorization") != "" {
			return affordances.Principal{}, affordances.ErrInvalidToken
		}
		return affordances.Principal{}, nil
	}
	as, err := oauth.New(&oauth.Options{Issuer: srv.URL, Name: "OAuth Site", Authenticate: app, SignIn: "/login",
		Principal: func(_ context.Context, id string) (affordances.Principal, error) {
			return affordances.Principal{ID: id}, nil
		}})
	if err != nil {
		t.Fatal(err)
	}
	site := affordances.NewSite(&affordances.SiteOptions{Name: "OAuth Site", Authenticate: as.Authenticate(app), OAuth: as.ResourceMetadata(), MCP: "/mcp"})
	affordances.AddAction(site.Route("/", nil), &affordances.Action{Name: "look", Description: "Looks.", Expose: affordances.ExposePublic, ReadOnly: true,
		AAL: &aal.Meta{Action: aal.Navigate, Trust: aal.TrustSafe}}, func(context.Context, *affordances.Request, struct{}) (struct{}, error) { return struct{}{}, nil })
	mux := http.NewServeMux()
	mux.Handle("/mcp", as.Protect(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { io.WriteString(w, "{}") })))
	mux.Handle("/", site.Handler(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		io.WriteString(w, "<!doctype html><title>Home</title>")
	})))
	h = as.Handler(mux)
	if wrap != nil {
		h = wrap(h)
	}
	return srv.URL
}

// runOAuth runs the suite on the site at u as alice, writes allowed.
func runOAuth(t *testing.T, u string) *conformance.Report {
	t.Helper()
	return conformance.Run(t.Context(), u, &conformance.Options{AllowWrites: true, Cookies: []*http.Cookie{{Name: "who", Value: "alice"}}})
}

var oauthChecks = []string{"oauth.metadata", "oauth.mcp-challenge", "oauth.pkce", "oauth.revoked"}

// TestOAuthChecksPass: a site on package oauth passes the OAuth checks;
// without --allow-writes, those that register a client skip, saying so.
func TestOAuthChecksPass(t *testing.T) {
	u := oauthSite(t, nil)
	rep := runOAuth(t, u)
	for _, id := range oauthChecks {
		if res, ok := rep.Result(id); !ok || res.Outcome != conformance.Pass {
			t.Errorf("%s: got %s (%s), want a pass", id, res.Outcome, res.Reason)
		}
	}
	rep = conformance.Run(t.Context(), u, nil)
	for _, id := range []string{"oauth.pkce", "oauth.revoked"} {
		if res, _ := rep.Result(id); res.Outcome != conformance.Skip || !strings.Contains(res.Reason, "--allow-writes") {
			t.Errorf("%s without --allow-writes: got %s (%s), want a skip that says so", id, res.Outcome, res.Reason)
		}
	}
}

// oauthMutants are broken OAuth sites: each check of oauthChecks fails
// against the first that names it.
var oauthMutants = []struct {
	name, breaks string
	wrap         func(http.Handler) http.Handler
}{
	{"metadata for another resource", "oauth.metadata", onResponse(func(r *http.Request, _ []byte, res *response) {
		if r.URL.Path == oauth.ProtectedResourceMetadataPath {
			rewriteJSON(res, func(m map[string]any) { m["resource"] = "https://bank.example" })
		}
	})},
	{"plain PKCE advertised", "oauth.metadata", onResponse(func(r *http.Request, _ []byte, res *response) {
		if r.URL.Path == oauth.AuthorizationServerMetadataPath {
			rewriteJSON(res, func(m map[string]any) { m["code_challenge_methods_supported"] = []string{"S256", "plain"} })
		}
	})},
	{"/mcp open without a token", "oauth.mcp-challenge", mutant(func(r *http.Request, _ *[]byte, _ http.Handler) *response {
		if r.URL.Path == "/mcp" && r.Header.Get("Authorization") == "" {
			return &response{status: 200, header: http.Header{"Content-Type": {"application/json"}}, body: []byte(`{}`)}
		}
		return nil
	}, nil)},
	{"a code without PKCE", "oauth.pkce", mutant(func(r *http.Request, _ *[]byte, _ http.Handler) *response {
		if r.URL.Path == oauth.AuthorizePath && r.URL.Query().Get("code_challenge_method") != "S256" {
			loc := r.URL.Query().Get("redirect_uri") + "?" + url.Values{"code": {"x"}, "state": {r.URL.Query().Get("state")}}.Encode()
			return &response{status: http.StatusSeeOther, header: http.Header{"Location": {loc}}}
		}
		return nil
	}, nil)},
	{"revocation that revokes nothing", "oauth.revoked", mutant(func(r *http.Request, _ *[]byte, _ http.Handler) *response {
		if r.URL.Path == oauth.RevokePath {
			return &response{status: 200, header: http.Header{}}
		}
		return nil
	}, nil)},
}

// TestOAuthMutants: each broken OAuth site fails the checks it names, and
// no other.
func TestOAuthMutants(t *testing.T) {
	for _, m := range oauthMutants {
		t.Run(m.name, func(t *testing.T) {
			rep := runOAuth(t, oauthSite(t, m.wrap))
			for _, id := range oauthChecks {
				res, _ := rep.Result(id)
				if broken := slices.Contains(strings.Fields(m.breaks), id); broken != (res.Outcome == conformance.Fail) {
					t.Errorf("%s: got %s (%s), want fail: %v", id, res.Outcome, res.Reason, broken)
				}
			}
		})
	}
}
