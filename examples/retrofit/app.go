package main

import (
	"bytes"
	"context"
	"crypto/rand"
	"crypto/subtle"
	"database/sql"
	"embed"
	"encoding/json"
	"html/template"
	"io/fs"
	"log/slog"
	"net/http"
	"net/url"
	"strings"
	"time"

	affordances "github.com/affordances/affordances-go"
)

// basePath is where the app is mounted: every URL it serves or writes
// starts with it.
const basePath = "/app"

//go:embed templates/*.html static/*
var assets embed.FS

// An App is the links app: its data and its parsed templates.
type App struct {
	store     *store
	views     map[string]*template.Template // by page name, each with base.html
	token     string                        // the bearer token of tokenUser, for agents
	tokenUser *User                         // the first seed user
}

// newApp returns the app on db, its tables created and seeded when new;
// token is the first seed user's bearer token.
func newApp(ctx context.Context, db *sql.DB, token string) (*App, error) {
	a := &App{store: &store{db: db}, views: map[string]*template.Template{}, token: token}
	if err := a.store.migrate(ctx); err != nil {
		return nil, err
	}
	var err error
	if a.tokenUser, err = a.store.userByHandle(ctx, seedUsers[0].handle); err != nil {
		return nil, err
	}
	funcs := template.FuncMap{
		"path": func(p string) string { return basePath + p },
		"date": func(t time.Time) string { return t.Format("2 Jan 2006") },
	}
	base := template.Must(template.New("base.html").Funcs(affordances.TemplateFuncs()).Funcs(funcs).ParseFS(assets, "templates/base.html"))
	for _, name := range []string{"links", "edit", "delete", "profile", "login", "about", "error"} {
		a.views[name] = template.Must(template.Must(base.Clone()).ParseFS(assets, "templates/"+name+".html"))
	}
	return a, nil
}

// Handler returns the app's routes under basePath, and a redirect from /
// to there.
func (a *App) Handler() http.Handler {
	mux := http.NewServeMux()
	mux.Handle("GET /{$}", http.RedirectHandler(basePath+"/links/", http.StatusSeeOther))
	mux.HandleFunc("GET /about", a.about)
	mux.HandleFunc("GET /login", a.loginForm)
	mux.HandleFunc("POST /login", a.login)
	mux.HandleFunc("POST /logout", a.logout)

	mux.HandleFunc("GET /links/{$}", a.signedIn(a.listLinks))
	mux.HandleFunc("POST /links/{$}", a.signedIn(a.addLink))
	mux.HandleFunc("GET /links/{id}/edit", a.signedIn(a.editForm))
	mux.HandleFunc("POST /links/{id}/edit", a.signedIn(a.editLink))
	mux.HandleFunc("POST /links/{id}/read", a.signedIn(a.markRead))
	mux.HandleFunc("GET /links/{id}/delete", a.signedIn(a.deleteForm))
	mux.HandleFunc("POST /links/{id}/delete", a.signedIn(a.deleteLink))
	mux.HandleFunc("GET /tags/{tag}/{$}", a.signedIn(a.listLinks))

	// Without these, /links would be someone's public page and the mux's
	// own redirect of /tags/go would drop basePath.
	mux.Handle("GET /links", http.RedirectHandler(basePath+"/links/", http.StatusMovedPermanently))
	mux.HandleFunc("GET /tags/{tag}", func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, basePath+"/tags/"+url.PathEscape(r.PathValue("tag"))+"/", http.StatusMovedPermanently)
	})

	mux.HandleFunc("GET /api/links", a.signedIn(a.apiLinks))
	mux.HandleFunc("POST /api/links/{id}/read", a.signedIn(a.apiMarkRead))

	// A user's public page. Literal patterns such as /login are more
	// specific, so they win; no user may have a handle that is one.
	mux.HandleFunc("GET /{user}", a.profile)
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		a.fail(w, r, http.StatusNotFound, "There is no page here.")
	})

	static, _ := fs.Sub(assets, "static")
	root := http.NewServeMux()
	root.Handle("GET /{$}", http.RedirectHandler(basePath+"/", http.StatusFound))
	root.Handle("GET "+basePath+"/static/", http.StripPrefix(basePath+"/static/", http.FileServerFS(static)))
	// The site answers agents before the app's sessions start one for
	// them; what it hands on, and the posts of its actions, go through the
	// app's own middleware. Its documents live at the origin's root.
	site := a.publish(mux).Handler(secureHeaders(a.sessions(a.checkCSRF(mux))))
	root.Handle(basePath+"/", http.StripPrefix(basePath, site))
	root.Handle("/.well-known/", site)
	root.Handle("GET /llms.txt", site)
	return root
}

// contextKey is the type of the keys of what the middleware puts in a
// request's context.
type contextKey struct{ name string }

var (
	nonceKey   = &contextKey{"nonce"}
	sessionKey = &contextKey{"session"}
)

// nonceFrom returns the request's CSP nonce, which its page's scripts carry.
func nonceFrom(ctx context.Context) string {
	n, _ := ctx.Value(nonceKey).(string)
	return n
}

// sessionFrom returns the request's session; the sessions middleware
// makes sure there is one.
func sessionFrom(ctx context.Context) *session {
	s, _ := ctx.Value(sessionKey).(*session)
	return s
}

// secureHeaders gives every response a Content-Security-Policy that runs
// only the scripts carrying a nonce new to the request, and no Referer for
// the pages it links to.
func secureHeaders(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		nonce := rand.Text()
		h := w.Header()
		h.Set("Content-Security-Policy", "default-src 'none'; script-src 'nonce-"+nonce+"'; style-src 'self'; img-src 'self' data:; "+
			"connect-src 'self'; form-action 'self'; base-uri 'none'; frame-ancestors 'none'")
		h.Set("Referrer-Policy", "no-referrer")
		h.Set("X-Content-Type-Options", "nosniff")
		affordances.PageFrom(r.Context()).SetNonce(nonce) // for the scripts of its head
		next.ServeHTTP(w, r.WithContext(context.WithValue(r.Context(), nonceKey, nonce)))
	})
}

// sessionCookie is the name of the cookie that carries the session id.
const sessionCookie = "session"

// sessions loads the browser's session from its cookie, or starts a new
// one for nobody yet, so that even the sign-in form has a CSRF token.
func (a *App) sessions(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var s *session
		var err error
		if p, _, _ := a.bearer(r); !p.Anonymous() {
			// An agent with a bearer token: its user, and no session to
			// keep; its posts are the site's, whose origin it checked.
			s = &session{User: userOf(p), CSRF: rand.Text()}
		} else if c, cerr := r.Cookie(sessionCookie); cerr == nil {
			s, err = a.store.session(r.Context(), c.Value)
		}
		if s == nil && err == nil {
			s, err = a.startSession(w, r, nil)
		}
		if err != nil {
			a.serverError(w, r, err)
			return
		}
		if s.User != nil { // the page's head and forms are this user's: no second session read
			affordances.PageFrom(r.Context()).SetPrincipal(principal(s.User, ""))
		}
		next.ServeHTTP(w, r.WithContext(context.WithValue(r.Context(), sessionKey, s)))
	})
}

// startSession starts a session for u (nil for nobody) and sends its cookie.
func (a *App) startSession(w http.ResponseWriter, r *http.Request, u *User) (*session, error) {
	s, err := a.store.newSession(r.Context(), u)
	if err != nil {
		return nil, err
	}
	http.SetCookie(w, &http.Cookie{
		Name: sessionCookie, Value: s.id, Path: basePath + "/", MaxAge: int(sessionTTL.Seconds()),
		HttpOnly: true, SameSite: http.SameSiteLaxMode, Secure: r.TLS != nil,
	})
	return s, nil
}

// checkCSRF refuses a POST that does not carry its session's CSRF token,
// in the form's csrf field or, from a script, in the X-CSRF-Token header;
// an agent's call, whose origin the site checked, carries none.
func (a *App) checkCSRF(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodGet || r.Method == http.MethodHead || affordances.ActionFrom(r.Context()) != nil {
			next.ServeHTTP(w, r)
			return
		}
		r.Body = http.MaxBytesReader(w, r.Body, 64<<10)
		token := r.Header.Get("X-CSRF-Token")
		if token == "" {
			token = r.PostFormValue("csrf")
		}
		if subtle.ConstantTimeCompare([]byte(token), []byte(sessionFrom(r.Context()).CSRF)) != 1 {
			a.fail(w, r, http.StatusForbidden, "This form has expired. Go back, reload the page and try again.")
			return
		}
		next.ServeHTTP(w, r)
	})
}

// signedIn runs h with the signed-in user; it sends anyone else to the
// sign-in page, or answers a script 401.
func (a *App) signedIn(h func(http.ResponseWriter, *http.Request, *User)) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		u := sessionFrom(r.Context()).User
		switch {
		case u != nil:
			h(w, r, u)
		case isAPI(r):
			a.fail(w, r, http.StatusUnauthorized, "Sign in first.")
		default:
			http.Redirect(w, r, basePath+"/login", http.StatusSeeOther)
		}
	}
}

func isAPI(r *http.Request) bool { return strings.HasPrefix(r.URL.Path, "/api/") }

// A page is what a template renders. render fills in the fields every
// page has; a handler, those of its page.
type page struct {
	*affordances.Page // what it shows agents: its head, its tools (nil methods are safe)

	Title              string
	User               *User // signed in, or nil
	CSRF, Nonce, Flash string
	Here               string // the URL of this page, for a form to come back to

	Links   []Link
	Tags    []tagCount
	Tag     string // the tag the list shows, or ""
	Unread  int
	Filter  string // "unread", or "" for all
	Link    Link
	Form    linkForm
	Profile *User
	Email   string // as typed into the sign-in form
	Error   string
}

// render writes the page name with status. The response depends on who
// is signed in, so it says Vary: Cookie.
func (a *App) render(w http.ResponseWriter, r *http.Request, status int, name string, p *page) {
	s := sessionFrom(r.Context())
	p.User, p.CSRF, p.Nonce, p.Here, p.Page = s.User, s.CSRF, nonceFrom(r.Context()), r.RequestURI, affordances.PageFrom(r.Context())
	if s.Flash != "" {
		p.Flash = s.Flash
		if err := a.store.setFlash(r.Context(), s, ""); err != nil {
			slog.Error("links: clearing a flash", "err", err)
		}
	}
	var buf bytes.Buffer
	if err := a.views[name].ExecuteTemplate(&buf, "base", p); err != nil {
		slog.Error("links: render "+name, "err", err)
		http.Error(w, "Something went wrong.", http.StatusInternalServerError)
		return
	}
	h := w.Header()
	h.Set("Content-Type", "text/html; charset=utf-8")
	h.Set("Cache-Control", "no-cache")
	h.Set("Vary", "Cookie")
	w.WriteHeader(status)
	w.Write(buf.Bytes())
}

// writeJSON writes v as the JSON answer of a script's request.
func writeJSON(w http.ResponseWriter, status int, v any) {
	h := w.Header()
	h.Set("Content-Type", "application/json")
	h.Set("Cache-Control", "no-store")
	h.Set("Vary", "Cookie")
	w.WriteHeader(status)
	json.NewEncoder(w).Encode(v)
}

// fail answers msg with status: as JSON to a script, else as a page.
func (a *App) fail(w http.ResponseWriter, r *http.Request, status int, msg string) {
	if isAPI(r) {
		writeJSON(w, status, map[string]string{"error": msg})
		return
	}
	a.render(w, r, status, "error", &page{Title: http.StatusText(status), Error: msg})
}

// serverError logs err and answers 500, saying nothing of it.
func (a *App) serverError(w http.ResponseWriter, r *http.Request, err error) {
	slog.Error("links: "+r.Method+" "+r.URL.Path, "err", err)
	if sessionFrom(r.Context()) == nil { // the session store failed
		http.Error(w, "Something went wrong.", http.StatusInternalServerError)
		return
	}
	a.fail(w, r, http.StatusInternalServerError, "Something went wrong. Try again in a moment.")
}
