package crawl

import (
	"net/http"
	"strconv"
	"strings"
)

// A Reader is whose credentials a checker's request carries.
type Reader int

const (
	// Nobody carries none of the checker's credentials.
	Nobody Reader = iota
	// Agent reads the graphs, the site index and the AAL documents of a
	// site, and calls its actions: with the bearer token; without one,
	// with the session cookies and the site's Origin, as a cookie call
	// must carry it (docs/protocol.md decision 4).
	Agent
	// Person reads the HTML pages and the approval pages, and posts the
	// forms, as a browser does: with the session cookies, and the site's
	// Origin on a POST only; without them, with the bearer token.
	Person
)

// Credentials are a test account's: an agent's bearer token and a
// person's browser session, of the same account, either or both. The
// zero value is an anonymous reader's.
type Credentials struct {
	Token   string
	Cookies []*http.Cookie
}

// The credentials as the command line names them.
const (
	FlagToken     = "--token"
	FlagCookieJar = "--cookie-jar"
)

// Authorize adds to h what a request of method as r carries for the site
// at origin ("http://127.0.0.1:8080"), and returns which credentials that
// is, as the command line names them: [FlagToken], [FlagCookieJar], or ""
// for none.
func (c Credentials) Authorize(h http.Header, r Reader, method, origin string) string {
	switch {
	case r == Nobody:
		return ""
	case c.Token != "" && (r == Agent || len(c.Cookies) == 0):
		h.Set("Authorization", "Bearer "+c.Token)
		return FlagToken
	case len(c.Cookies) > 0:
		pairs := make([]string, len(c.Cookies))
		for i, ck := range c.Cookies {
			pairs[i] = ck.Name + "=" + ck.Value
		}
		h.Set("Cookie", strings.Join(pairs, "; "))
		if r == Agent || (method != http.MethodGet && method != http.MethodHead) {
			h.Set("Origin", origin)
		}
		return FlagCookieJar
	}
	return ""
}

// Lacks returns the credentials a request as r needs that c has not, as
// the command line names them: "--token or --cookie-jar" for an agent
// without either, "--cookie-jar" for a person without a session, and ""
// when c has them.
func (c Credentials) Lacks(r Reader) string {
	switch {
	case r == Agent && c.Token == "" && len(c.Cookies) == 0:
		return FlagToken + " or " + FlagCookieJar
	case r == Person && len(c.Cookies) == 0:
		return FlagCookieJar
	}
	return ""
}

// SignIn reports whether status is how a site answers a reader it wants
// signed in: a redirect (to its sign-in form; 304 Not Modified is none),
// or 401 Unauthorized.
func SignIn(status int) bool {
	return status == http.StatusUnauthorized || Redirect(status)
}

// Redirect reports whether status sends the client elsewhere: 3xx but 304
// Not Modified.
func Redirect(status int) bool {
	return status >= 300 && status < 400 && status != http.StatusNotModified
}

// NoRedirects returns a copy of c (nil: the zero client) that follows no
// redirect: the 3xx is the answer, for the checker to name.
func NoRedirects(c *http.Client) *http.Client {
	var cp http.Client
	if c != nil {
		cp = *c
	}
	cp.CheckRedirect = func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }
	return &cp
}

// Answered says in a few words what a request got: "GET / answered 303 to
// /login", "GET /drafts answered 401 Unauthorized". path is the request's
// path; location, the response's Location header, is shown relative to
// origin when it is of it.
func Answered(method, path string, status int, location, origin string) string {
	if Redirect(status) && location != "" {
		if rest, ok := strings.CutPrefix(location, origin); ok && strings.HasPrefix(rest, "/") {
			location = rest
		}
		return method + " " + path + " answered " + strconv.Itoa(status) + " to " + location
	}
	return method + " " + path + " answered " + strconv.Itoa(status) + " " + http.StatusText(status)
}
