package affordances

import "net/http"

// authenticate says who is asking. A bearer request is authenticated with
// its cookies taken away, so a bad token is never rescued by a cookie and
// a cookie session never passes for a bearer call (docs/protocol.md decision 4). A
// panicking authenticator is an internal error.
func (s *Site) authenticate(r *http.Request) (p Principal, err error) {
	kind := kindOf(r)
	if s.opts.Authenticate == nil {
		if kind == bearerCall {
			return Principal{}, ErrInvalidToken
		}
		return Principal{}, nil
	}
	if kind == bearerCall {
		r = withoutCookies(r)
	}
	defer s.recoverTo(&err, "authenticate", "")
	p, err = s.opts.Authenticate(r)
	if err != nil {
		// An *Error is the requester's answer (ErrInvalidToken among
		// them); any other error is the site's failure, never the
		// requester's: internal, logged.
		return Principal{}, s.public(err, "authenticate")
	}
	if p.ID != "" && p.Method == "" {
		p.Method = kind.method()
	}
	if kind == bearerCall && (p.ID == "" || p.Method != AuthBearer) {
		return Principal{}, ErrInvalidToken
	}
	return p, nil
}

// withoutCookies returns a shallow copy of r with no Cookie header, or r
// when it has none.
func withoutCookies(r *http.Request) *http.Request {
	if _, ok := r.Header["Cookie"]; !ok {
		return r
	}
	r2 := new(http.Request)
	*r2 = *r
	r2.Header = r.Header.Clone()
	r2.Header.Del("Cookie")
	return r2
}
