package affordances

import (
	"net/http"
	"strings"

	"github.com/affordances/affordances-go/internal/weborigin"
)

// callKind classifies a call by its credentials (docs/protocol.md decision 4).
type callKind int

const (
	anonymousCall callKind = iota // neither bearer nor cookie
	cookieCall                    // a Cookie header and no Authorization: Bearer
	bearerCall                    // Authorization: Bearer
)

func kindOf(r *http.Request) callKind {
	// The keys are canonical: the map is read as Header.Get and
	// Header.Values read it, without canonicalising them again.
	if v := r.Header["Authorization"]; len(v) > 0 {
		if scheme, _, ok := strings.Cut(v[0], " "); ok && strings.EqualFold(scheme, "Bearer") {
			return bearerCall
		}
	}
	for _, c := range r.Header["Cookie"] {
		if strings.TrimSpace(c) != "" {
			return cookieCall
		}
	}
	return anonymousCall
}

// method is how a Principal of a request of this kind was authenticated,
// when its authenticator did not say: "" for an anonymous one.
func (k callKind) method() AuthMethod {
	switch k {
	case bearerCall:
		return AuthBearer
	case cookieCall:
		return AuthCookie
	}
	return ""
}

// errOrigin is the refusal of a cookie call without the site's Origin.
var errOrigin = forbidden(phrase("A cookie call needs this site's Origin header."))

// checkOrigin applies the origin rule of docs/protocol.md decision 4 to a call: a
// cookie call (a Cookie header and no Authorization: Bearer) must carry an
// Origin header equal to the site's origin: the configured
// [SiteOptions.Origin], or else the request's own scheme, host and port. It
// returns nil for bearer and anonymous calls and for a matching Origin, and an
// [*Error] with code [Unauthorized] (HTTP 403) otherwise: step 2 of an
// agent's call.
func (s *Site) checkOrigin(r *http.Request) error {
	if kindOf(r) != cookieCall {
		return nil
	}
	origins := r.Header.Values("Origin")
	if len(origins) != 1 || origins[0] == "" || origins[0] == "null" {
		return errOrigin // none, or two (a reader of the second would see another)
	}
	want := s.origin(r)
	if origins[0] == want {
		return nil // already serialised as Parse would: the browser's usual case
	}
	if got, err := weborigin.Parse(origins[0]); err != nil || got != want {
		return errOrigin
	}
	return nil
}

// hostOrigin returns the origin the request's Host names under the
// configured origin's scheme, "" when it names none: a request for the
// site by another name (DNS rebinding) has another.
func (s *Site) hostOrigin(r *http.Request) string {
	scheme, _, _ := strings.Cut(s.opts.Origin, "://")
	o, err := weborigin.Parse(scheme + "://" + r.Host)
	if err != nil {
		return ""
	}
	return o
}

// origin returns the site's origin for r.
func (s *Site) origin(r *http.Request) string {
	if s.opts.Origin != "" {
		return s.opts.Origin
	}
	scheme := "http"
	if r.TLS != nil {
		scheme = "https"
	}
	o, err := weborigin.Parse(scheme + "://" + r.Host)
	if err != nil {
		return ""
	}
	return o
}
