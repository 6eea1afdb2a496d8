package conformance

import (
	"bytes"
	"encoding/json"
	"net/http"
	"net/url"
	"slices"
	"strings"

	"golang.org/x/net/html"
	"golang.org/x/oauth2"

	"github.com/affordances/affordances-go/internal/crawl"
)

const secC14 = "docs/protocol.md decision 14"

// oauthChecks are the checks of a site that takes OAuth access tokens
// (docs/protocol.md decision 14): they run when its index names its
// protected resource metadata.
func oauthChecks() []check {
	return []check{
		{"oauth.metadata", secC14, "The site index's oauth is the URL of the site's protected resource metadata (RFC 9728): its resource is the site, and it names an authorization server whose metadata (RFC 8414) has that issuer, the code flow, and PKCE with S256, never plain.", Must, checkOAuthMetadata},
		{"oauth.mcp-challenge", secC14, "By default the site's /mcp answers a request without a token with 401 and WWW-Authenticate: Bearer resource_metadata=\"<its protected resource metadata>\", so that an MCP host starts the sign-in.", Must, checkMCPChallenge},
		{"oauth.pkce", secC14, "The authorization server gives no code for a request without PKCE, or with the plain method: S256 only (OAuth 2.1).", Must, checkPKCE},
		{"oauth.revoked", secC14, "A token the person's consent gave calls the site as them; once revoked (RFC 7009) it is refused.", Must, checkRevoked},
	}
}

// oauthMeta is what the checks read of the two metadata documents.
type oauthMeta struct {
	prmX, asX            *exchange
	Resource             string   `json:"resource"`
	AuthorizationServers []string `json:"authorization_servers"`
	as                   struct {
		Issuer                string   `json:"issuer"`
		AuthorizationEndpoint string   `json:"authorization_endpoint"`
		TokenEndpoint         string   `json:"token_endpoint"`
		RegistrationEndpoint  string   `json:"registration_endpoint"`
		RevocationEndpoint    string   `json:"revocation_endpoint"`
		ResponseTypes         []string `json:"response_types_supported"`
		GrantTypes            []string `json:"grant_types_supported"`
		CodeChallengeMethods  []string `json:"code_challenge_methods_supported"`
	}
}

// oauthMeta reads the site's protected resource metadata and its
// authorization server's, once; a verdict when it cannot.
func (s *suite) oauthMeta() (*oauthMeta, verdict, bool) {
	if s.index == nil || s.index.OAuth == "" {
		return nil, none("the site index names no oauth: the site takes no OAuth tokens"), false
	}
	if s.oauth != nil {
		return s.oauth, verdict{}, true
	}
	prm, err := url.Parse(s.index.OAuth)
	if err != nil || (prm.Host != "" && prm.Scheme+"://"+prm.Host != s.base) {
		return nil, fail(s.indexX, "the index's oauth %q is not a URL of this site", s.index.OAuth), false
	}
	m := &oauthMeta{}
	m.prmX = s.get(prm.RequestURI(), "application/json", crawl.Nobody)
	if m.prmX.err != nil || m.prmX.status != 200 || json.Unmarshal(m.prmX.body, m) != nil {
		return nil, fail(m.prmX, "the protected resource metadata is not a JSON document answered 200"), false
	}
	if len(m.AuthorizationServers) == 0 {
		return nil, fail(m.prmX, "the protected resource metadata names no authorization server"), false
	}
	issuer := m.AuthorizationServers[0]
	u, err := url.Parse(issuer)
	if err != nil || u.Host == "" {
		return nil, fail(m.prmX, "the authorization server %q is not a URL", issuer), false
	}
	// RFC 8414, section 3: the well-known path goes before the issuer's.
	where := u.Scheme + "://" + u.Host + "/.well-known/oauth-authorization-server" + strings.TrimSuffix(u.Path, "/")
	m.asX = s.fetch(where)
	if m.asX.err != nil || m.asX.status != 200 || json.Unmarshal(m.asX.body, &m.as) != nil {
		return nil, fail(m.asX, "the authorization server's metadata is not a JSON document answered 200"), false
	}
	s.oauth = m
	return m, verdict{}, true
}

// fetch GETs an absolute URL, which may be another site's, with no
// credentials.
func (s *suite) fetch(u string) *exchange {
	x := &exchange{method: http.MethodGet, path: u, reqHeader: http.Header{"Accept": {"application/json"}}}
	s.send(x, u)
	return x
}

func checkOAuthMetadata(s *suite) verdict {
	m, v, ok := s.oauthMeta()
	if !ok {
		return v
	}
	switch as := m.as; {
	case m.Resource != s.base && !strings.HasPrefix(m.Resource, s.base+"/"):
		return fail(m.prmX, "its resource is %q, not this site (%s)", m.Resource, s.base)
	case as.Issuer != m.AuthorizationServers[0]:
		return fail(m.asX, "the authorization server's metadata names the issuer %q, not %q", as.Issuer, m.AuthorizationServers[0])
	case as.AuthorizationEndpoint == "" || as.TokenEndpoint == "":
		return fail(m.asX, "the authorization server's metadata names no authorization or token endpoint")
	case !slices.Contains(as.ResponseTypes, "code"):
		return fail(m.asX, "response_types_supported is %q: no code flow", as.ResponseTypes)
	case !slices.Contains(as.CodeChallengeMethods, "S256") || slices.Contains(as.CodeChallengeMethods, "plain"):
		return fail(m.asX, "code_challenge_methods_supported is %q: want S256, and never plain", as.CodeChallengeMethods)
	case slices.Contains(as.GrantTypes, "implicit") || slices.Contains(as.GrantTypes, "password"):
		return fail(m.asX, "grant_types_supported is %q: OAuth 2.1 has no implicit or password grant", as.GrantTypes)
	}
	return pass(m.asX, "resource %s, authorization server %s, S256", m.Resource, m.as.Issuer)
}

func checkMCPChallenge(s *suite) verdict {
	m, v, ok := s.oauthMeta()
	if !ok {
		return v
	}
	if s.index.MCP == "" {
		return none("the site index names no mcp endpoint")
	}
	x := s.do(http.MethodPost, s.index.MCP, crawl.Nobody, http.Header{"Content-Type": {"application/json"}, "Accept": {"application/json, text/event-stream"}},
		[]byte(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"affordances-conform","version":"0"}}}`))
	want := `resource_metadata="` + s.base + strings.TrimPrefix(s.index.OAuth, s.base) + `"`
	if x.err != nil || x.status != http.StatusUnauthorized {
		return fail(x, "without a token: %s, want 401", x.answered(s.base))
	}
	if h := x.header.Get("WWW-Authenticate"); !strings.HasPrefix(h, "Bearer") || !strings.Contains(h, want) {
		return fail(x, "WWW-Authenticate is %q, want Bearer with %s", h, want)
	}
	return pass(x, "401, %s", m.prmX.path)
}

// The client the checks register: a native app on a loopback port
// nothing listens on (RFC 8252), which never receives its code.
const conformRedirect = "http://127.0.0.1:9/affordances-conform"

// register registers the suite's client (RFC 7591) and returns its id.
func (s *suite) register(m *oauthMeta) (string, *exchange) {
	body, _ := json.Marshal(map[string]any{"client_name": "affordances conform", "redirect_uris": []string{conformRedirect},
		"grant_types": []string{"authorization_code", "refresh_token"}, "response_types": []string{"code"}, "token_endpoint_auth_method": "none"})
	x := s.post(m.as.RegistrationEndpoint, "application/json", body)
	var out struct {
		ClientID string `json:"client_id"`
	}
	if x.err != nil || x.status != http.StatusCreated || json.Unmarshal(x.body, &out) != nil {
		return "", x
	}
	return out.ClientID, x
}

// post POSTs body of type to an absolute URL, with no credentials.
func (s *suite) post(u, typ string, body []byte) *exchange {
	x := &exchange{method: http.MethodPost, path: u, reqHeader: http.Header{"Content-Type": {typ}, "Accept": {"application/json"}}, reqBody: body}
	s.send(x, u)
	return x
}

// conformState is the state of the suite's authorization requests.
const conformState = "affordances-conform"

// authorizeURL is the authorization request of client for a token for
// resource (the site), with extra.
func (m *oauthMeta) authorizeURL(client, resource string, extra url.Values) string {
	q := url.Values{"response_type": {"code"}, "client_id": {client}, "redirect_uri": {conformRedirect}, "state": {conformState}, "scope": {"safe user"}, "resource": {resource}}
	for k, v := range extra {
		q[k] = v
	}
	return m.as.AuthorizationEndpoint + "?" + q.Encode()
}

// redirected returns the query of the redirect to the suite's client that
// x answered with, or nil.
func redirected(x *exchange) url.Values {
	if x.err != nil || !crawl.Redirect(x.status) {
		return nil
	}
	loc, err := url.Parse(x.header.Get("Location"))
	if err != nil || !strings.HasPrefix(loc.String(), conformRedirect) {
		return nil
	}
	return loc.Query()
}

func checkPKCE(s *suite) verdict {
	m, v, ok := s.oauthMeta()
	if !ok {
		return v
	}
	if !s.opts.AllowWrites {
		return skip("registers a client: runs with --allow-writes")
	}
	if m.as.RegistrationEndpoint == "" {
		return none("the authorization server has no registration endpoint for the suite to register at")
	}
	client, x := s.register(m)
	if client == "" {
		return fail(x, "registering a client (RFC 7591) answered %s", x.answered(s.base))
	}
	for _, method := range []string{"", "plain"} {
		extra := url.Values{}
		if method != "" {
			extra = url.Values{"code_challenge": {oauth2.GenerateVerifier()}, "code_challenge_method": {method}}
		}
		x := s.fetchAs(m.authorizeURL(client, s.base, extra), crawl.Nobody)
		q := redirected(x)
		switch {
		case q != nil && q.Get("code") != "":
			return fail(x, "a request with PKCE %q got a code", cmpOr(method, "absent"))
		case q != nil && q.Get("error") != "invalid_request":
			return fail(x, "a request with PKCE %q was refused as %q, want invalid_request (RFC 7636, section 4.4.1)", cmpOr(method, "absent"), q.Get("error"))
		case q == nil:
			return skip("the authorization server answered %s to a request without S256 before it could refuse it: it may ask the person first", x.answered(s.base))
		}
	}
	return pass(nil, "no PKCE, and plain, refused with an error to the client")
}

// fetchAs GETs an absolute URL of this site as who, or of another site
// with no credentials.
func (s *suite) fetchAs(u string, who crawl.Reader) *exchange {
	if path, ok := strings.CutPrefix(u, s.base); ok && strings.HasPrefix(path, "/") {
		return s.get(path, "", who)
	}
	return s.fetch(u)
}

func cmpOr(a, b string) string {
	if a != "" {
		return a
	}
	return b
}

func checkRevoked(s *suite) verdict {
	m, v, ok := s.oauthMeta()
	if !ok {
		return v
	}
	switch {
	case !s.opts.AllowWrites:
		return skip("registers a client and grants it: runs with --allow-writes")
	case s.lacks(crawl.Person) != "":
		return needsSkip(s.lacks(crawl.Person), nil, "the person consents in their browser session: needs %s", s.lacks(crawl.Person))
	case m.as.RegistrationEndpoint == "" || m.as.RevocationEndpoint == "":
		return none("the authorization server has no registration or no revocation endpoint")
	case !strings.HasPrefix(m.as.AuthorizationEndpoint, s.base+"/"):
		return none("the authorization server is another site's, where the suite's session is not")
	}
	client, x := s.register(m)
	if client == "" {
		return fail(x, "registering a client (RFC 7591) answered %s", x.answered(s.base))
	}
	verifier := oauth2.GenerateVerifier()
	auth := m.authorizeURL(client, s.base, url.Values{"code_challenge": {oauth2.S256ChallengeFromVerifier(verifier)}, "code_challenge_method": {"S256"}})
	page := s.fetchAs(auth, crawl.Person)
	form, ok := consentForm(page.body)
	if page.err != nil || page.status != 200 || !ok {
		return skip("the authorization endpoint answered the signed-in person %s, not a consent form the suite can post", page.answered(s.base))
	}
	x = s.do(http.MethodPost, strings.TrimPrefix(auth, s.base), crawl.Person, http.Header{"Content-Type": {"application/x-www-form-urlencoded"}}, []byte(form.Encode()))
	q := redirected(x)
	if q == nil || q.Get("code") == "" {
		return fail(x, "the person allowing answered %s, not a redirect to the client with a code", x.answered(s.base))
	}
	if q.Get("state") != conformState {
		return fail(x, "the redirect's state is %q, not the request's", q.Get("state"))
	}
	x = s.post(m.as.TokenEndpoint, "application/x-www-form-urlencoded", []byte(url.Values{"grant_type": {"authorization_code"}, "code": {q.Get("code")},
		"redirect_uri": {conformRedirect}, "client_id": {client}, "code_verifier": {verifier}, "resource": {s.base}}.Encode()))
	var tok struct {
		AccessToken  string `json:"access_token"`
		RefreshToken string `json:"refresh_token"`
	}
	if x.err != nil || x.status != 200 || json.Unmarshal(x.body, &tok) != nil || tok.AccessToken == "" {
		return fail(x, "exchanging the code answered %s", x.answered(s.base))
	}
	bearer := func() *exchange {
		return s.do(http.MethodGet, "/", crawl.Nobody, http.Header{"Accept": {"application/vnd.affordances+json"}, "Authorization": {"Bearer " + tok.AccessToken}}, nil)
	}
	if x := bearer(); x.status != 200 {
		return fail(x, "the new token reading / answered %s", x.answered(s.base))
	}
	revoke := tok.RefreshToken
	if revoke == "" {
		revoke = tok.AccessToken
	}
	if x := s.post(m.as.RevocationEndpoint, "application/x-www-form-urlencoded", []byte(url.Values{"token": {revoke}, "client_id": {client}}.Encode())); x.status != 200 {
		return fail(x, "revoking answered %s, want 200 (RFC 7009)", x.answered(s.base))
	}
	x = bearer()
	if x.status != http.StatusUnauthorized {
		return fail(x, "the revoked token reading / answered %s, want 401", x.answered(s.base))
	}
	return pass(x, "granted, called, revoked, refused")
}

// consentForm reads the first form of a consent page that has a submit
// button named decision with the value allow: its fields as the page
// sets them (hidden ones, checked boxes, text as given), and that button.
func consentForm(doc []byte) (url.Values, bool) {
	root, err := html.Parse(bytes.NewReader(doc))
	if err != nil {
		return nil, false
	}
	var found url.Values
	var walk func(n *html.Node, form url.Values, allow *bool)
	walk = func(n *html.Node, form url.Values, allow *bool) {
		if found != nil {
			return
		}
		if n.Type == html.ElementNode && n.Data == "form" && strings.EqualFold(attr(n, "method"), "post") {
			fields, ok := url.Values{}, false
			for c := n.FirstChild; c != nil; c = c.NextSibling {
				walk(c, fields, &ok)
			}
			if ok {
				found = fields
				found.Set("decision", "allow")
			}
			return
		}
		if form != nil && n.Type == html.ElementNode {
			name := attr(n, "name")
			switch {
			case n.Data == "button" && name == "decision" && attr(n, "value") == "allow":
				*allow = true
			case n.Data == "input" && name != "" && !has(n, "disabled"):
				switch attr(n, "type") {
				case "checkbox", "radio":
					if has(n, "checked") {
						form.Add(name, attr(n, "value"))
					}
				case "submit", "button":
				default:
					form.Add(name, attr(n, "value"))
				}
			}
		}
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			walk(c, form, allow)
		}
	}
	walk(root, nil, nil)
	return found, found != nil
}

func attr(n *html.Node, key string) string {
	for _, a := range n.Attr {
		if a.Key == key {
			return a.Val
		}
	}
	return ""
}

func has(n *html.Node, key string) bool {
	return slices.ContainsFunc(n.Attr, func(a html.Attribute) bool { return a.Key == key })
}
