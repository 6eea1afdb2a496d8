package oauth

import (
	"context"
	"errors"
	"net/http"
	"slices"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/oauthex"

	affordances "github.com/affordances/affordances-go"
	"github.com/affordances/affordances-go/aal"
)

// A resourceServer is what a site that takes OAuth access tokens does
// with them, whoever issues them (its own [Server], or an authorization
// server of its own, [ResourceServer]): it answers /mcp without a token,
// serves its protected resource metadata, and makes a token the account
// it acts for, with the grant it carries.
type resourceServer struct {
	origin    string   // the site's: the resource
	audiences []string // the resource indicators that name it (RFC 8707)
	issuer    string   // the authorization server's
	name      string
	// verify returns who the token acts for, with their grant; ok is
	// false for a token that is not the authorization server's (the
	// application's own).
	verify func(ctx context.Context, token string) (p affordances.Principal, ok bool, err error)
}

func newResourceServer(origin, issuer, name string) *resourceServer {
	return &resourceServer{origin: origin, issuer: issuer, name: name,
		audiences: []string{origin, origin + "/", origin + "/mcp"}}
}

// authenticate is the site's authenticator: a token of the authorization
// server's is the account it acts for; anything else is app's to say.
func (rs *resourceServer) authenticate(app func(*http.Request) (affordances.Principal, error)) func(*http.Request) (affordances.Principal, error) {
	return func(r *http.Request) (affordances.Principal, error) {
		if tok, ok := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer "); ok {
			if p, ours, err := rs.verify(r.Context(), tok); ours || err != nil {
				return p, err
			}
		}
		return app(r)
	}
}

// protect answers a request without an Authorization header with 401 and
// the challenge that starts an MCP host's sign-in (RFC 9728, section
// 5.1), and one whose token of the authorization server's is expired,
// revoked or altered with 401 and error="invalid_token" (RFC 6750,
// section 3.1), so that the host refreshes it or signs in again rather
// than read refusals in its tools' results. It hands the others to h: a
// good token, and the application's own tokens, which the site judges.
func (rs *resourceServer) protect(h http.Handler) http.Handler {
	meta := `resource_metadata="` + rs.metadata() + `"`
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		challenge := "Bearer " + meta
		if tok, ok := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer "); ok {
			_, ours, err := rs.verify(r.Context(), tok)
			switch {
			case !ours || err == nil:
				h.ServeHTTP(w, r)
				return
			case !errors.Is(err, affordances.ErrInvalidToken):
				http.Error(w, "Something went wrong on the server. Try again later.", http.StatusInternalServerError)
				return
			}
			challenge = `Bearer error="invalid_token", ` + meta
		} else if r.Header.Get("Authorization") != "" {
			h.ServeHTTP(w, r) // another scheme: the site's to judge
			return
		}
		w.Header().Set("WWW-Authenticate", challenge)
		http.Error(w, "Unauthorized: sign in with OAuth; the WWW-Authenticate header says where", http.StatusUnauthorized)
	})
}

// metadata is the URL of the site's protected resource metadata.
func (rs *resourceServer) metadata() string { return rs.origin + ProtectedResourceMetadataPath }

// serveMetadata answers the protected resource metadata (RFC 9728): the
// resource its tokens are for, at the origin or, in the path form, its
// /mcp, and the authorization server that issues them.
func (rs *resourceServer) serveMetadata(w http.ResponseWriter, r *http.Request) {
	writeJSON(w, http.StatusOK, &oauthex.ProtectedResourceMetadata{
		Resource:               rs.origin + strings.TrimPrefix(r.URL.Path, ProtectedResourceMetadataPath),
		AuthorizationServers:   []string{rs.issuer},
		ScopesSupported:        Scopes,
		BearerMethodsSupported: []string{"header"},
		ResourceName:           rs.name,
	})
}

// handle adds the metadata's routes to mux.
func (rs *resourceServer) handle(mux *http.ServeMux) {
	mux.HandleFunc("GET "+ProtectedResourceMetadataPath, rs.serveMetadata)
	mux.HandleFunc("GET "+ProtectedResourceMetadataPath+"/mcp", rs.serveMetadata)
}

// ours reports whether audiences name this site.
func (rs *resourceServer) ours(audiences []string) bool {
	for _, a := range audiences {
		if slices.Contains(rs.audiences, a) {
			return true
		}
	}
	return false
}

// trust returns the trust classes among scopes, in Scopes' order.
func trust(scopes []string) []aal.Trust {
	var out []aal.Trust
	for _, sc := range Scopes {
		if slices.Contains(scopes, sc) {
			out = append(out, aal.Trust(sc))
		}
	}
	return out
}
