package shop

import (
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"strings"

	affordances "github.com/affordances/affordances-go"
)

// sessionCookie is the name of the session cookie.
const sessionCookie = "sid"

// authenticate says who is asking (docs/protocol.md decision 4): a bearer token when
// the request has one (an unknown token is affordances.ErrInvalidToken),
// else the session cookie (an unknown or expired session is nobody), else
// nobody. A failure of the store is its error, which the site answers as
// internal and logs.
func (s *Shop) authenticate(r *http.Request) (affordances.Principal, error) {
	if scheme, token, ok := strings.Cut(r.Header.Get("Authorization"), " "); ok && strings.EqualFold(scheme, "Bearer") {
		u, err := s.store.tokenUser(r.Context(), strings.TrimSpace(token))
		if err != nil {
			return affordances.Principal{}, err
		}
		if u == nil {
			return affordances.Principal{}, affordances.ErrInvalidToken
		}
		return principal(u, affordances.AuthBearer), nil
	}
	c, err := r.Cookie(sessionCookie)
	if err != nil || c.Value == "" {
		return affordances.Principal{}, nil
	}
	u, err := s.store.sessionUser(r.Context(), c.Value)
	if err != nil {
		return affordances.Principal{}, err
	}
	if u == nil {
		return affordances.Principal{}, nil
	}
	return principal(u, affordances.AuthCookie), nil
}

func principal(u *User, m affordances.AuthMethod) affordances.Principal {
	return affordances.Principal{ID: strconv.FormatInt(u.ID, 10), Method: m, User: u}
}

// userOf returns the user behind p, or nil for nobody.
func userOf(p affordances.Principal) *User {
	u, _ := p.User.(*User)
	return u
}

// userID returns the id of the user behind p, or 0 for nobody.
func userID(p affordances.Principal) int64 {
	if u := userOf(p); u != nil {
		return u.ID
	}
	return 0
}

// sessionCookieFor returns the cookie that carries sid; an empty sid
// expires it.
func (s *Shop) sessionCookieFor(sid string) *http.Cookie {
	c := &http.Cookie{
		Name: sessionCookie, Value: sid, Path: "/",
		HttpOnly: true, SameSite: http.SameSiteLaxMode, Secure: s.secure,
		MaxAge: int(sessionTTL.Seconds()),
	}
	if sid == "" {
		c.MaxAge = -1
	}
	return c
}

// originScheme returns the scheme of a configured origin, or an error when
// it is not http(s)://host[:port].
func originScheme(origin string) (string, error) {
	u, err := url.Parse(origin)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || u.User != nil ||
		(u.Path != "" && u.Path != "/") || u.RawQuery != "" || u.Fragment != "" {
		return "", fmt.Errorf("shop: Options.Origin %q: want http(s)://host[:port]", origin)
	}
	return u.Scheme, nil
}
