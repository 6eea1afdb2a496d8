// Package plain is a small website written without affordances-go, the
// shape a PHP or Rails site has: static HTML pages, two pages rendered
// from templates, plain form handlers, and the Agent Affordance Layer
// (AAL 0.1.1) written by hand beside them. It publishes no Affordances
// graph: an agent finds what it can do here in the AAL manifest at
// /.well-known/agent-affordances.json, the fragment each page links with
// <link rel="agent-affordances"> or inlines as
// <script type="application/aal+json"> (the contact page), and the
// data-aal attributes of the elements those fragments name. It is how
// the project proves that its consumer (inspect, call, the MCP bridge)
// reads and operates any site that publishes AAL, through a real browser.
//
//	s := plain.New(nil)
//	http.ListenAndServe("127.0.0.1:8080", s.Handler())
//
// Pages, each with its affordances:
//
//	/                search (GET /search), newsletter-signup (POST /newsletter),
//	                 open-notes and open-contact (links)
//	/search?q=       the notes that match; search again
//	/notes           add-note (POST /notes); delete-note on each note
//	                 (POST /notes/delete, destructive and irreversible; the
//	                 element's data-aal-input {"id":"n-1"} picks the note)
//	/contact         send-message (POST /contact: name, email, topic,
//	                 message, an optional copy); its fragment is inline
//	/login           sign-in (POST /login): ada@example.com, password "ada";
//	                 the session cookie signs the notes added meanwhile
//
// Everything lives in memory and is lost when the process ends. Every form
// the site receives, a search included, is recorded as it arrived
// ([Site.Received]), so a test can say that the site got exactly the
// filled form, or nothing.
package plain

import (
	"bytes"
	"crypto/rand"
	"embed"
	"encoding/hex"
	"encoding/json"
	"html/template"
	"io/fs"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"sync"
)

// The demo account.
const (
	DemoEmail    = "ada@example.com"
	DemoPassword = "ada"
)

// SessionCookie is the name of the cookie that holds a signed-in session.
const SessionCookie = "session"

// ManifestPath is where the site serves its AAL manifest (docs/protocol.md §29).
const ManifestPath = "/.well-known/agent-affordances.json"

//go:embed all:site templates/*.html
var assets embed.FS

// Options configures [New]. The zero value of every field is a sound
// default.
type Options struct {
	// Origin is the site's origin as its manifest says it
	// (site.origin), such as https://notes.example. Empty: the origin
	// each request came to (http, or https over TLS, and its Host).
	Origin string

	// OnReceive, when set, is called with every form the site receives,
	// after it is recorded: the demo command prints them.
	OnReceive func(Submission)
}

// A Site is the running site: its notes, sessions and the forms it
// received. It is safe for concurrent use.
type Site struct {
	opts  Options
	pages map[string]*template.Template
	files fs.FS

	mu       sync.Mutex
	notes    []Note
	nextID   int
	sessions map[string]string // session cookie value -> email
	received []Submission
}

// A Note is one note of the notebook.
type Note struct {
	ID     string // n-1, n-2...
	Title  string
	Body   string
	Author string // the signed-in account that added it, or "anonymous"
}

// A Submission is one form the site received, as it arrived: a POST's
// form body, or a GET form's query (the search).
type Submission struct {
	Method string
	Path   string
	// Form holds the fields as the browser sent them, every one of them.
	Form url.Values
	// User is the signed-in account the request's session cookie names,
	// or "" for none.
	User string
}

// New returns the site with its two seeded notes. opts may be nil.
func New(opts *Options) *Site {
	s := &Site{sessions: map[string]string{}, pages: map[string]*template.Template{}}
	if opts != nil {
		s.opts = *opts
	}
	s.files, _ = fs.Sub(assets, "site") // the directory is embedded
	for _, name := range []string{"notes", "search", "error"} {
		s.pages[name] = template.Must(template.ParseFS(assets, "templates/"+name+".html"))
	}
	s.add("Welcome", "This notebook is a plain website: HTML, forms and AAL written by hand.", "Corner Notes")
	s.add("Ideas for the garden", "Tomatoes by the south wall, herbs in the window boxes.", "Corner Notes")
	return s
}

// Received returns every form the site received so far, in order.
func (s *Site) Received() []Submission {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make([]Submission, len(s.received))
	for i, r := range s.received {
		out[i] = r
		out[i].Form = cloneValues(r.Form)
	}
	return out
}

// Notes returns the notes, oldest first.
func (s *Site) Notes() []Note {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.notes)
}

// Handler returns the site's HTTP handler.
func (s *Site) Handler() http.Handler {
	mux := http.NewServeMux()
	static := http.FileServerFS(s.files)
	file := func(name string) http.HandlerFunc {
		return func(w http.ResponseWriter, r *http.Request) {
			http.ServeFileFS(w, r, s.files, name)
		}
	}
	mux.HandleFunc("GET /{$}", file("index.html"))
	mux.HandleFunc("GET /contact", file("contact.html"))
	mux.HandleFunc("GET /contact/sent", file("sent.html"))
	mux.HandleFunc("GET /newsletter/thanks", file("subscribed.html"))
	mux.HandleFunc("GET /login", file("login.html"))
	mux.HandleFunc("GET /style.css", file("style.css"))
	mux.HandleFunc("GET "+ManifestPath, s.manifest)
	mux.HandleFunc("GET /.well-known/agent-affordances/{name}", func(w http.ResponseWriter, r *http.Request) {
		if !strings.HasSuffix(r.PathValue("name"), ".json") {
			s.fail(w, http.StatusNotFound, "Not found", "There is no fragment here.", "/")
			return
		}
		static.ServeHTTP(w, r)
	})
	mux.HandleFunc("GET /notes", s.showNotes)
	mux.HandleFunc("GET /search", s.search)
	mux.HandleFunc("POST /notes", s.addNote)
	mux.HandleFunc("POST /notes/delete", s.deleteNote)
	mux.HandleFunc("POST /contact", s.contact)
	mux.HandleFunc("POST /newsletter", s.newsletter)
	mux.HandleFunc("POST /login", s.login)
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		s.fail(w, http.StatusNotFound, "Not found", "There is no page here.", "/")
	})
	return mux
}

// manifest serves the hand-written manifest with the site's origin in it,
// as a site's configuration would fill it in.
func (s *Site) manifest(w http.ResponseWriter, r *http.Request) {
	b, err := fs.ReadFile(s.files, strings.TrimPrefix(ManifestPath, "/"))
	var m map[string]any
	if err == nil {
		err = json.Unmarshal(b, &m)
	}
	if err != nil {
		http.Error(w, "the manifest is missing", http.StatusInternalServerError)
		return
	}
	origin := s.opts.Origin
	if origin == "" {
		scheme := "http"
		if r.TLS != nil {
			scheme = "https"
		}
		origin = scheme + "://" + r.Host
	}
	m["site"].(map[string]any)["origin"] = origin
	w.Header().Set("Content-Type", "application/json")
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	enc.Encode(m)
}

// receive records the form of r and returns it.
func (s *Site) receive(r *http.Request) Submission {
	form := r.URL.Query()
	if r.Method == http.MethodPost {
		r.ParseForm()
		form = r.PostForm
	}
	sub := Submission{Method: r.Method, Path: r.URL.Path, Form: cloneValues(form), User: s.user(r)}
	s.mu.Lock()
	s.received = append(s.received, sub)
	s.mu.Unlock()
	if s.opts.OnReceive != nil {
		s.opts.OnReceive(Submission{Method: sub.Method, Path: sub.Path, Form: cloneValues(form), User: sub.User})
	}
	return sub
}

func (s *Site) user(r *http.Request) string {
	c, err := r.Cookie(SessionCookie)
	if err != nil {
		return ""
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.sessions[c.Value]
}

func (s *Site) add(title, body, author string) Note {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.nextID++
	n := Note{ID: "n-" + strconv.Itoa(s.nextID), Title: title, Body: body, Author: author}
	s.notes = append(s.notes, n)
	return n
}

func (s *Site) showNotes(w http.ResponseWriter, r *http.Request) {
	s.render(w, http.StatusOK, "notes", map[string]any{"User": s.user(r), "Notes": s.Notes()})
}

func (s *Site) search(w http.ResponseWriter, r *http.Request) {
	q := strings.TrimSpace(r.URL.Query().Get("q"))
	if r.URL.RawQuery != "" {
		s.receive(r)
	}
	var found []Note
	if q != "" {
		for _, n := range s.Notes() {
			if strings.Contains(strings.ToLower(n.Title+" "+n.Body), strings.ToLower(q)) {
				found = append(found, n)
			}
		}
	}
	s.render(w, http.StatusOK, "search", map[string]any{"Query": q, "Notes": found})
}

func (s *Site) addNote(w http.ResponseWriter, r *http.Request) {
	sub := s.receive(r)
	title, body := strings.TrimSpace(sub.Form.Get("title")), strings.TrimSpace(sub.Form.Get("body"))
	if title == "" || body == "" || len(title) > 80 || len(body) > 2000 {
		s.fail(w, http.StatusBadRequest, "Note not added", "A note needs a title (at most 80 characters) and a text (at most 2,000).", "/notes")
		return
	}
	author := sub.User
	if author == "" {
		author = "anonymous"
	}
	s.add(title, body, author)
	http.Redirect(w, r, "/notes", http.StatusSeeOther)
}

func (s *Site) deleteNote(w http.ResponseWriter, r *http.Request) {
	sub := s.receive(r)
	id := sub.Form.Get("id")
	s.mu.Lock()
	i := slices.IndexFunc(s.notes, func(n Note) bool { return n.ID == id })
	if i >= 0 {
		s.notes = slices.Delete(s.notes, i, i+1)
	}
	s.mu.Unlock()
	if i < 0 {
		s.fail(w, http.StatusNotFound, "Note not found", "There is no note "+id+".", "/notes")
		return
	}
	http.Redirect(w, r, "/notes", http.StatusSeeOther)
}

func (s *Site) contact(w http.ResponseWriter, r *http.Request) {
	sub := s.receive(r)
	for _, f := range []string{"name", "email", "message"} {
		if strings.TrimSpace(sub.Form.Get(f)) == "" {
			s.fail(w, http.StatusBadRequest, "Message not sent", "Fill in your name, your email and the message.", "/contact")
			return
		}
	}
	http.Redirect(w, r, "/contact/sent", http.StatusSeeOther)
}

func (s *Site) newsletter(w http.ResponseWriter, r *http.Request) {
	sub := s.receive(r)
	if !strings.Contains(sub.Form.Get("email"), "@") {
		s.fail(w, http.StatusBadRequest, "Not signed up", "Give an email address such as you@example.com.", "/")
		return
	}
	http.Redirect(w, r, "/newsletter/thanks", http.StatusSeeOther)
}

func (s *Site) login(w http.ResponseWriter, r *http.Request) {
	sub := s.receive(r)
	if sub.Form.Get("email") != DemoEmail || sub.Form.Get("password") != DemoPassword {
		s.fail(w, http.StatusUnauthorized, "Not signed in", "Wrong email or password.", "/login")
		return
	}
	b := make([]byte, 16)
	rand.Read(b)
	token := hex.EncodeToString(b)
	s.mu.Lock()
	s.sessions[token] = DemoEmail
	s.mu.Unlock()
	http.SetCookie(w, &http.Cookie{Name: SessionCookie, Value: token, Path: "/", HttpOnly: true, SameSite: http.SameSiteLaxMode})
	http.Redirect(w, r, "/notes", http.StatusSeeOther)
}

func (s *Site) fail(w http.ResponseWriter, status int, title, message, back string) {
	s.render(w, status, "error", map[string]any{"Title": title, "Message": message, "Back": back})
}

func (s *Site) render(w http.ResponseWriter, status int, name string, data any) {
	var b bytes.Buffer
	if err := s.pages[name].Execute(&b, data); err != nil {
		http.Error(w, "the page could not be rendered", http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.WriteHeader(status)
	w.Write(b.Bytes())
}

func cloneValues(v url.Values) url.Values {
	out := make(url.Values, len(v))
	for k, vs := range v {
		out[k] = slices.Clone(vs)
	}
	return out
}
