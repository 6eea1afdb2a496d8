package affordances

import "net/http"

// admit is step 2 of a call (seed 000): the origin rule of its front door,
// who asks ([Site.authenticate]), the action's expose against them
// (docs/protocol.md decision 1), and the trust classes of their grant, if any
// (docs/protocol.md decision 14). The Request it returns, from when the caller is
// known, is the call's for the steps that follow, made with the call's
// answer (call.ans) in one allocation; nil if no one was authenticated.
func (s *Site) admit(r *http.Request, c *call) (*Request, error) {
	if err := c.origin(s, r); err != nil {
		return nil, err
	}
	p, err := s.authenticate(r)
	if err != nil {
		return nil, err
	}
	both := &struct {
		req Request
		ans answer
	}{req: Request{HTTP: r, Principal: p, Page: r.URL.Path, route: c.route, params: c.params, next: c.next}}
	req := &both.req
	c.ans = &both.ans
	a := c.action
	if a.Expose != ExposePublic && p.Anonymous() {
		return req, s.signIn()
	}
	if !a.listedFor(req) {
		if p.Anonymous() {
			return req, s.signIn()
		}
		return req, forbidden(phrase("You may not do this."))
	}
	if g := p.Grant; g != nil && !g.Allows(a.trust()) {
		return req, insufficientScope(a.trust()) // grant.go
	}
	return req, nil
}

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
