package oauth

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"mime"
	"net"
	"net/http"
	"net/netip"
	"net/url"
	"slices"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/ory/fosite"

	"github.com/affordances/affordances-go/store"
)

// clients finds the assistants that ask for tokens: those that registered
// (RFC 7591), kept in the store, and those whose client_id is the https
// URL of their metadata document (Client ID Metadata Documents, which MCP
// prefers), fetched and kept for a while.
type clients struct {
	st       store.OAuth
	resource []string // the audiences a client may ask for: this site
	hc       *http.Client

	mu     sync.Mutex
	cached map[string]cachedClient
}

type cachedClient struct {
	c       *fosite.DefaultClient
	name    string
	expires time.Time
}

// What a client may do here, whoever it is: the code flow with PKCE, as
// a public client (an assistant keeps no secret), for this site only.
var (
	grantTypes    = []string{"authorization_code", "refresh_token"}
	responseTypes = []string{"code"}
)

func (cs *clients) client(id string, redirects []string) *fosite.DefaultClient {
	return &fosite.DefaultClient{ID: id, Public: true, RedirectURIs: redirects, GrantTypes: grantTypes,
		ResponseTypes: responseTypes, Scopes: Scopes, Audience: cs.resource}
}

// get returns the client with the id, or fosite.ErrNotFound.
func (cs *clients) get(ctx context.Context, id string) (fosite.Client, error) {
	c, _, err := cs.named(ctx, id)
	return c, err
}

// named returns the client with the id and its name, as its registration
// or its metadata document says it.
func (cs *clients) named(ctx context.Context, id string) (*fosite.DefaultClient, string, error) {
	if !strings.HasPrefix(id, "https://") {
		reg, err := cs.st.Client(ctx, id)
		if err != nil {
			return nil, "", err
		}
		if reg == nil {
			return nil, "", fosite.ErrNotFound
		}
		return cs.client(reg.ID, reg.RedirectURIs), reg.Name, nil
	}
	cs.mu.Lock()
	hit, ok := cs.cached[id]
	cs.mu.Unlock()
	if ok && time.Now().Before(hit.expires) {
		return hit.c, hit.name, nil
	}
	doc, err := cs.fetch(ctx, id)
	if err != nil {
		// What went wrong stays in the server's error, not the answer: it
		// would tell a caller which addresses answer.
		return nil, "", fosite.ErrNotFound.WithWrap(err).WithHint("The client's metadata document could not be read, or does not name its own URL.")
	}
	c := cs.client(id, doc.RedirectURIs)
	cs.mu.Lock()
	if len(cs.cached) >= 1000 {
		clear(cs.cached)
	}
	cs.cached[id] = cachedClient{c: c, name: doc.ClientName, expires: time.Now().Add(10 * time.Minute)}
	cs.mu.Unlock()
	return c, doc.ClientName, nil
}

// A metadata is the part of a client's metadata (RFC 7591, section 2)
// this server reads, from a registration or a metadata document.
type metadata struct {
	ClientID                string   `json:"client_id,omitempty"`
	ClientName              string   `json:"client_name,omitempty"`
	ClientURI               string   `json:"client_uri,omitempty"`
	RedirectURIs            []string `json:"redirect_uris"`
	GrantTypes              []string `json:"grant_types,omitempty"`
	ResponseTypes           []string `json:"response_types,omitempty"`
	TokenEndpointAuthMethod string   `json:"token_endpoint_auth_method,omitempty"`
	Scope                   string   `json:"scope,omitempty"`
}

// check says what in m this server cannot take: a redirect URI that is not
// https or a loopback http one (RFC 8252), grants other than the code
// flow's, a client that authenticates (assistants keep no secret).
func (m *metadata) check() error {
	if len(m.RedirectURIs) == 0 || len(m.RedirectURIs) > 20 {
		return errors.New("redirect_uris must list 1 to 20 URIs")
	}
	for _, r := range m.RedirectURIs {
		if err := redirectURI(r); err != nil {
			return err
		}
	}
	for _, g := range m.GrantTypes {
		if !slices.Contains(grantTypes, g) {
			return fmt.Errorf("grant_types: %q is not one this server grants (authorization_code, refresh_token)", g)
		}
	}
	for _, t := range m.ResponseTypes {
		if !slices.Contains(responseTypes, t) {
			return fmt.Errorf("response_types: %q is not one this server answers (code)", t)
		}
	}
	if a := m.TokenEndpointAuthMethod; a != "" && a != "none" {
		return fmt.Errorf("token_endpoint_auth_method: %q: clients here are public (none)", a)
	}
	if len(m.ClientName) > 200 {
		return errors.New("client_name is longer than 200 bytes")
	}
	return nil
}

// redirectURI says why r cannot be a redirect URI: an https URL, or http
// on a loopback address for a native app (RFC 8252, section 7.3), or a
// private-use scheme (section 7.1), with no fragment.
func redirectURI(r string) error {
	u, err := url.Parse(r)
	switch {
	case err != nil || u.Scheme == "" || u.Fragment != "" || u.Opaque != "":
		return fmt.Errorf("redirect_uris: %q is not an absolute URI without a fragment", r)
	case u.Scheme == "https" && u.Host != "":
		return nil
	case u.Scheme == "http" && (u.Hostname() == "127.0.0.1" || u.Hostname() == "::1" || u.Hostname() == "localhost"):
		return nil
	case u.Scheme == "http" || u.Scheme == "javascript" || u.Scheme == "data" || u.Scheme == "file":
		return fmt.Errorf("redirect_uris: %q: http is for loopback addresses only, and %s is never one", r, u.Scheme)
	case strings.Contains(u.Scheme, "."): // a private-use scheme, reverse DNS (RFC 8252, section 7.1)
		return nil
	}
	return fmt.Errorf("redirect_uris: %q: want https, a loopback http, or a private-use scheme like com.example.app", r)
}

// fetch reads the metadata document at id and checks it names itself.
func (cs *clients) fetch(ctx context.Context, id string) (*metadata, error) {
	u, err := url.Parse(id)
	if err != nil || u.Scheme != "https" || u.Host == "" || u.Path == "" || u.Path == "/" || u.Fragment != "" || u.User != nil {
		return nil, fmt.Errorf("the client_id %q is not an https URL with a path", id)
	}
	ctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, id, nil)
	if err != nil {
		return nil, err
	}
	req.Header.Set("Accept", "application/json")
	res, err := cs.hc.Do(req)
	if err != nil {
		return nil, fmt.Errorf("the client's metadata document %s could not be read: %w", id, err)
	}
	defer res.Body.Close()
	if res.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("the client's metadata document %s answered %s", id, res.Status)
	}
	if mt, _, _ := mime.ParseMediaType(res.Header.Get("Content-Type")); mt != "application/json" {
		return nil, fmt.Errorf("the client's metadata document %s is %q, not application/json", id, mt)
	}
	var m metadata
	if err := json.NewDecoder(io.LimitReader(res.Body, 5<<10)).Decode(&m); err != nil {
		return nil, fmt.Errorf("the client's metadata document %s is not JSON of at most 5 KiB: %w", id, err)
	}
	if m.ClientID != id {
		return nil, fmt.Errorf("the client's metadata document at %s names the client %q", id, m.ClientID)
	}
	if err := m.check(); err != nil {
		return nil, fmt.Errorf("the client's metadata document %s: %w", id, err)
	}
	return &m, nil
}

// publicOnly is a dialer's Control that refuses addresses a client's
// metadata document may not be fetched from: loopback, private, link-local,
// shared (carrier-grade NAT, cloud metadata services), reserved and the
// like, and ports other than https's, so that naming a URL cannot make
// the server reach into its own network.
func publicOnly(_, address string, _ syscall.RawConn) error {
	ap, err := netip.ParseAddrPort(address)
	if err != nil {
		return err
	}
	ip := ap.Addr().Unmap()
	if ap.Port() != 443 || !ip.IsGlobalUnicast() || ip.IsPrivate() || slices.ContainsFunc(notPublic, func(p netip.Prefix) bool { return p.Contains(ip) }) {
		return fmt.Errorf("oauth: %s is not a public https address", address)
	}
	return nil
}

// notPublic are the ranges IsGlobalUnicast and IsPrivate let through that
// are no public address.
var notPublic = []netip.Prefix{
	netip.MustParsePrefix("0.0.0.0/8"),
	netip.MustParsePrefix("100.64.0.0/10"),  // shared address space (RFC 6598)
	netip.MustParsePrefix("192.0.0.0/24"),   // IETF protocol assignments
	netip.MustParsePrefix("198.18.0.0/15"),  // benchmarking
	netip.MustParsePrefix("240.0.0.0/4"),    // reserved
	netip.MustParsePrefix("64:ff9b::/96"),   // NAT64
	netip.MustParsePrefix("64:ff9b:1::/48"), // local NAT64
	netip.MustParsePrefix("2002::/16"),      // 6to4
	netip.MustParsePrefix("2001::/32"),      // Teredo
}

// metadataClient is the HTTP client that fetches clients' metadata
// documents: public addresses only, no redirect, a short timeout.
func metadataClient() *http.Client {
	d := &net.Dialer{Timeout: 5 * time.Second, Control: publicOnly}
	tr := http.DefaultTransport.(*http.Transport).Clone()
	tr.Proxy = nil
	tr.DialContext = d.DialContext
	return &http.Client{Transport: tr, Timeout: 10 * time.Second,
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
}
