package main

import (
	"net/http"
	"strconv"
	"strings"

	affordances "github.com/affordances/affordances-go"
)

// sessionCookie is the name of the session cookie.
const sessionCookie = "sid"

// authenticate says who is asking (docs/protocol.md decision 4): the user of a bearer
// token (an unknown one is affordances.ErrInvalidToken), else of the
// session cookie, else nobody. A failure of the store is its error, which
// the site answers as internal and logs.
func (b *Board) authenticate(r *http.Request) (affordances.Principal, error) {
	if scheme, token, ok := strings.Cut(r.Header.Get("Authorization"), " "); ok && strings.EqualFold(scheme, "Bearer") {
		u, err := b.store.tokenUser(r.Context(), strings.TrimSpace(token))
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
	u, err := b.store.sessionUser(r.Context(), c.Value)
	if err != nil {
		return affordances.Principal{}, err
	}
	if u == nil {
		return affordances.Principal{}, nil // an expired session is nobody
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

// cookie returns the session cookie that carries sid, Secure when r came
// over TLS; an empty sid expires it.
func cookie(r *http.Request, sid string) *http.Cookie {
	c := &http.Cookie{
		Name: sessionCookie, Value: sid, Path: "/", MaxAge: int(sessionTTL.Seconds()),
		HttpOnly: true, SameSite: http.SameSiteLaxMode, Secure: r.TLS != nil,
	}
	if sid == "" {
		c.MaxAge = -1
	}
	return c
}
