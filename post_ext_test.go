package affordances_test

import (
	"cmp"
	"compress/gzip"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"net/http"
	"net/http/httptest"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/affordances/affordances-go"
)

// noteApp is an app written without the library: its own POST handler
// adds a note for the session's user, refuses an empty one with 422 and a
// role="alert" message, and a CSRF check that refuses any post without
// its token, unless the site made it for an action (issue 27).
type noteApp struct {
	mu    sync.Mutex
	notes []string
	seen  []string // what the handler saw: user, values
}

func (a *noteApp) handler() http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("POST /notes/{$}", func(w http.ResponseWriter, r *http.Request) {
		user := ""
		if c, err := r.Cookie("session"); err == nil {
			user = c.Value
		} else if ar := affordances.ActionFrom(r.Context()); ar != nil {
			user = ar.Principal.ID // an agent's call, with a bearer token
		}
		a.mu.Lock()
		defer a.mu.Unlock()
		a.seen = append(a.seen, user+" "+r.PostForm.Encode())
		if r.PostFormValue("text") == "taken" {
			w.WriteHeader(http.StatusConflict) // no words for a person
			return
		}
		if r.PostFormValue("text") == "" {
			w.Header().Set("Content-Type", "text/html; charset=utf-8")
			w.WriteHeader(http.StatusUnprocessableEntity)
			io.WriteString(w, `<form><p role="alert">Write something first.</p></form>`)
			return
		}
		a.notes = append(a.notes, user+": "+r.PostFormValue("text")+" "+strings.Join(r.PostForm["tags"], ","))
		http.SetCookie(w, &http.Cookie{Name: "last", Value: "1"})
		http.Redirect(w, r, "/notes/?added=1", http.StatusSeeOther)
	})
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodPost {
			r.ParseForm()
			if r.PostFormValue("csrf") != "token" && affordances.ActionFrom(r.Context()) == nil {
				http.Error(w, "CSRF", http.StatusForbidden)
				return
			}
		}
		mux.ServeHTTP(w, r)
	})
}

type postedNote struct {
	Text    string   `json:"text"`
	Tags    []string `json:"tags,omitempty"`
	Private bool     `json:"private,omitempty"`
	Pinned  bool     `json:"pinned,omitempty"`
}

// TestPostRunsTheAppsHandler: an action declared with affordances.Post is
// carried out by the app's own POST handler, in process, with the
// requester's session, through the app's own middleware; its redirect,
// its cookie and its refusal become the delta's, and the reload is the
// site's.
func TestPostRunsTheAppsHandler(t *testing.T) {
	app := &noteApp{}
	site := affordances.NewSite(&affordances.SiteOptions{Authenticate: func(r *http.Request) (affordances.Principal, error) {
		if r.Header.Get("Authorization") == "Bearer tok" {
			return affordances.Principal{ID: "ada"}, nil
		}
		if c, err := r.Cookie("session"); err == nil {
			return affordances.Principal{ID: c.Value}, nil
		}
		return affordances.Principal{}, nil
	}})
	notes := site.Route("/notes/", &affordances.RouteOptions{State: func(context.Context, *affordances.Request) (*affordances.State, error) {
		app.mu.Lock()
		defer app.mu.Unlock()
		return &affordances.State{Entities: map[string]any{"notes": slices.Clone(app.notes)}}, nil
	}})
	affordances.AddAction(notes, &affordances.Action{Name: "addNote", Description: "Add a note", Expose: affordances.ExposeSession}, affordances.Post[postedNote](nil))
	h := site.Handler(app.handler())

	ok := do(t, h, post("/notes/", `{"action":"addNote","input":{"text":"hi","tags":["a","b"],"private":true,"pinned":false}}`, "Authorization: Bearer tok", "Cookie: session=mallory"))
	if ok.status != 200 || ok.delta.Redirect != "/notes/?added=1" || !strings.Contains(ok.header.Get("Set-Cookie"), "last=1") {
		t.Errorf("bearer call: got %d redirect %q cookie %q; want 200, the app's redirect and cookie (%s)", ok.status, ok.delta.Redirect, ok.header.Get("Set-Cookie"), ok.body)
	}
	if got := ok.delta.Changed["notes"]; len(got.([]any)) != 1 || got.([]any)[0] != "ada: hi a,b" {
		t.Errorf("the delta's notes: got %v, want the note the app's handler added", got)
	}
	refused := do(t, h, post("/notes/", `{"action":"addNote","input":{"text":""}}`, "Authorization: Bearer tok"))
	if refused.status != 400 || refused.delta.Error == nil || refused.delta.Error.Code != affordances.InvalidInput || refused.delta.Error.Message != "Write something first." {
		t.Errorf("a refusal: got %d %s, want invalid_input saying the app's alert", refused.status, refused.body)
	}
	conflict := do(t, h, post("/notes/", `{"action":"addNote","input":{"text":"taken"}}`, "Authorization: Bearer tok", "Accept-Language: fr"))
	if conflict.status != 409 || conflict.delta.Error == nil || conflict.delta.Error.Code != affordances.Unavailable || conflict.delta.Error.Message != "The site refused it: 409 Conflict." {
		t.Errorf("a refusal without words: got %d %s, want unavailable saying the status", conflict.status, conflict.body)
	}
	// A person's form, with their cookie session, runs the same handler.
	form := httptest.NewRequest("POST", "http://shop.test/notes/", strings.NewReader(url.Values{"_action": {"addNote"}, "text": {"from a form"}}.Encode()))
	form.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	form.Header.Set("Sec-Fetch-Site", "same-origin")
	form.Header.Set("Cookie", "session=grace")
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, form)
	if rec.Code != 303 || rec.Header().Get("Location") != "/notes/?added=1" {
		t.Errorf("the form: got %d to %q, want 303 to the app's redirect", rec.Code, rec.Header().Get("Location"))
	}
	app.mu.Lock()
	defer app.mu.Unlock()
	if want := []string{"ada: hi a,b", "grace: from a form "}; !slices.Equal(app.notes, want) {
		t.Errorf("notes: got %q, want %q", app.notes, want)
	}
	if want := []string{"ada private=on&tags=a&tags=b&text=hi", "ada text=", "ada text=taken", "grace text=from+a+form"}; !slices.Equal(app.seen, want) {
		t.Errorf("the handler saw %q, want %q", app.seen, want)
	}
	// A post from outside is not the site's: the app's CSRF check holds.
	rec = httptest.NewRecorder()
	app.handler().ServeHTTP(rec, httptest.NewRequest("POST", "/notes/", strings.NewReader("text=x")))
	if rec.Code != http.StatusForbidden {
		t.Errorf("a post without the token: got %d, want the app's 403", rec.Code)
	}
}

// gzipped is an app's compression middleware: it compresses every
// answer when always, else those whose request accepts gzip.
func gzipped(always bool, next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !always && !strings.Contains(r.Header.Get("Accept-Encoding"), "gzip") {
			next.ServeHTTP(w, r)
			return
		}
		rec := httptest.NewRecorder()
		next.ServeHTTP(rec, r)
		maps.Copy(w.Header(), rec.Header())
		w.Header().Set("Content-Encoding", "gzip")
		w.WriteHeader(rec.Code)
		z := gzip.NewWriter(w)
		z.Write(rec.Body.Bytes())
		z.Close()
	})
}

// TestPostReadsACompressedRefusal: an app behind gzip middleware refuses
// in its own words, which reach the agent whatever the caller's
// Accept-Encoding, and when the app compresses anyway. Before, the
// caller's gzip was forwarded and the agent read "422 Unprocessable
// Entity".
func TestPostReadsACompressedRefusal(t *testing.T) {
	for _, always := range []bool{false, true} {
		app := &noteApp{}
		site := affordances.NewSite(&affordances.SiteOptions{Authenticate: bearerAda})
		notes := site.Route("/notes/", nil)
		affordances.AddAction(notes, &affordances.Action{Name: "addNote", Description: "Add a note", Expose: affordances.ExposeSession}, affordances.Post[postedNote](nil))
		h := site.Handler(gzipped(always, app.handler()))
		res := do(t, h, post("/notes/", `{"action":"addNote","input":{"text":""}}`, "Authorization: Bearer tok", "Accept-Encoding: gzip, deflate"))
		if res.code() != affordances.InvalidInput || res.delta.Error.Message != "Write something first." {
			t.Errorf("compressing always %v: got %d %s, want invalid_input in the app's words", always, res.status, res.body)
		}
	}
}

// bearerAda is ada with the bearer token tok, nobody else.
func bearerAda(r *http.Request) (affordances.Principal, error) {
	if r.Header.Get("Authorization") == "Bearer tok" {
		return affordances.Principal{ID: "ada"}, nil
	}
	return affordances.Principal{}, nil
}

// feedApp is a feed reader's subscribe handler, as apps write one: a
// refused form rendered again with 200 and an alert, a page asking which
// of two feeds, work queued for later (202), htmx's HX-Redirect and
// HX-Location, and a redirect to its sign-in page for a post whose
// session it no longer knows. It adds a feed only where it says so.
type feedApp struct {
	mu    sync.Mutex
	feeds []string
}

func (a *feedApp) handler() http.Handler {
	mux := http.NewServeMux()
	page := func(w http.ResponseWriter, title, body string) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		io.WriteString(w, "<!doctype html><title>"+title+"</title><h1>"+title+"</h1>"+body)
	}
	mux.HandleFunc("POST /subscribe", func(w http.ResponseWriter, r *http.Request) {
		if c, err := r.Cookie("session"); err != nil || c.Value != "ada" { // an expired session
			http.Redirect(w, r, "/login?next=/subscribe", http.StatusFound)
			return
		}
		u := r.PostFormValue("url")
		switch u {
		case "":
			page(w, "Subscribe", `<form method="post"><p role="alert">Enter the feed's address.</p><input name="url"></form>`)
			return
		case "https://known.test/":
			page(w, "Subscribe", `<div class="alert" role="alert">You follow this feed already.</div>`)
			return
		case "https://two.test/":
			page(w, "Choose a feed", `<form method="post"><label><input type="radio" name="feed" value="1"> Posts</label><label><input type="radio" name="feed" value="2"> Comments</label></form>`)
			return
		case "https://slow.test/":
			w.WriteHeader(http.StatusAccepted) // fetched in the background, which may fail
			return
		}
		a.mu.Lock()
		a.feeds = append(a.feeds, u)
		n := len(a.feeds)
		a.mu.Unlock()
		switch r.PostFormValue("via") {
		case "htmx":
			w.Header().Set("HX-Redirect", "/feeds/"+strconv.Itoa(n))
		case "htmx-location":
			w.Header().Set("HX-Location", `{"path":"/feeds/`+strconv.Itoa(n)+`","target":"#main"}`)
		case "ok":
			page(w, "Subscribed", "<p>Done.</p>") // this app's success: 200
		default:
			http.Redirect(w, r, "/feeds/"+strconv.Itoa(n), http.StatusSeeOther)
		}
	})
	return mux
}

type feedInput struct {
	URL string `json:"url"`
	Via string `json:"via,omitempty"`
}

// TestPostReadsWhatTheAppDid: the outcome of a Post is what the app's
// handler did, read as apps say it. Before, every one of these was ok
// (the refused form, the page asking, the sign-in redirect as done, the
// 202 as done, the htmx success without its redirect).
func TestPostReadsWhatTheAppDid(t *testing.T) {
	app := &feedApp{}
	site := affordances.NewSite(&affordances.SiteOptions{SignInReason: "Sign in to Feeds first.", Authenticate: func(r *http.Request) (affordances.Principal, error) {
		if c, err := r.Cookie("session"); err == nil {
			return affordances.Principal{ID: c.Value}, nil
		}
		return affordances.Principal{}, nil
	}})
	rt := site.Route("/subscribe", nil)
	affordances.AddAction(rt, &affordances.Action{Name: "subscribe", Description: "Follow a feed", Expose: affordances.ExposeSession},
		affordances.PostWith[feedInput](nil, &affordances.PostOptions{SignIn: "/login"}))
	affordances.AddAction(rt, &affordances.Action{Name: "subscribeRead200", Description: "Follow a feed", Expose: affordances.ExposeSession},
		affordances.PostWith(func(*affordances.Request, feedInput) string { return "/subscribe" }, &affordances.PostOptions{
			Done: func(res *http.Response) bool { return res.StatusCode == http.StatusOK }, // this app's success is a 200
		}))
	h := site.Handler(app.handler())
	for _, tc := range []struct {
		name, action, input string
		signedOut           bool
		code                affordances.Code
		redirect, message   string
	}{
		{name: "redirect after the post", input: `{"url":"https://a.test/"}`, redirect: "/feeds/1"},
		{name: "the form again with an alert", input: `{"url":""}`, code: affordances.InvalidInput, message: "Enter the feed's address."},
		{name: "a page with an alert", input: `{"url":"https://known.test/"}`, code: affordances.Unavailable, message: "You follow this feed already."},
		{name: "a page that asks", input: `{"url":"https://two.test/"}`, code: affordances.Unavailable, message: "The app answered with a page that asks the person something (“Choose a feed”), and did not say it was done."},
		{name: "accepted for later", input: `{"url":"https://slow.test/"}`, message: "The app accepted it, to do later: it is not done yet."},
		{name: "HX-Redirect", input: `{"url":"https://b.test/","via":"htmx"}`, redirect: "/feeds/2"},
		{name: "HX-Location", input: `{"url":"https://c.test/","via":"htmx-location"}`, redirect: "/feeds/3"},
		{name: "to the sign-in page", input: `{"url":"https://d.test/"}`, signedOut: true, code: affordances.Unauthorized, message: "Sign in to Feeds first."},
		{name: "200 read as done by Post", input: `{"url":"https://e.test/","via":"ok"}`, code: affordances.Unavailable, message: "The app answered with a page that asks the person something (“Subscribed”), and did not say it was done."},
		{name: "200 declared done", action: "subscribeRead200", input: `{"url":"https://f.test/","via":"ok"}`},
		{name: "a declared reading keeps refusals", action: "subscribeRead200", input: `{"url":"https://slow.test/"}`, message: "The app accepted it, to do later: it is not done yet."},
	} {
		t.Run(tc.name, func(t *testing.T) {
			action := cmp.Or(tc.action, "subscribe")
			cookie := "Cookie: session=ada"
			if tc.signedOut {
				cookie = "Cookie: session=expired"
			}
			res := do(t, h, post("/subscribe", `{"action":"`+action+`","input":`+tc.input+`}`, "Origin: http://shop.test", cookie))
			msg := res.delta.Message
			if res.delta.Error != nil {
				msg = res.delta.Error.Message
			}
			if res.code() != tc.code || res.delta.Redirect != tc.redirect || msg != tc.message || res.delta.OK != (tc.code == "") {
				t.Errorf("got %d %s; want code %q, redirect %q, message %q", res.status, res.body, tc.code, tc.redirect, tc.message)
			}
		})
	}
	app.mu.Lock()
	defer app.mu.Unlock()
	if want := []string{"https://a.test/", "https://b.test/", "https://c.test/", "https://e.test/", "https://f.test/"}; !slices.Equal(app.feeds, want) {
		t.Errorf("feeds: got %q, want %q", app.feeds, want)
	}
}

// TestPostWritesBooleansAsTheAppsForm: a boolean is sent as the app's own
// checkbox sends it, value="1" when its field's tag says form:",1", under
// the form's name when the tag gives one; "on" otherwise. Before, every
// checked box was "on", and this app's handler, which reads == "1", saw
// starred false.
func TestPostWritesBooleansAsTheAppsForm(t *testing.T) {
	var got []string
	app := http.NewServeMux()
	// The app's form: <input type="checkbox" name="starred" value="1">,
	// <input type="checkbox" name="pin" value="yes">, <input type="checkbox" name="public">.
	app.HandleFunc("POST /entries/{id}", func(w http.ResponseWriter, r *http.Request) {
		got = append(got, fmt.Sprint(r.PostFormValue("starred") == "1", r.PostFormValue("pin") == "yes", r.PostFormValue("public") == "on"))
		http.Redirect(w, r, "/entries/"+r.PathValue("id"), http.StatusSeeOther)
	})
	type entryInput struct {
		ID      int  `json:"id"`
		Starred bool `json:"starred" form:",1"`
		Pinned  bool `json:"pinned" form:"pin,yes"`
		Public  bool `json:"public"`
	}
	site := affordances.NewSite(&affordances.SiteOptions{Authenticate: bearerAda})
	rt := site.Route("/entries/{id}", nil)
	affordances.AddAction(rt, &affordances.Action{Name: "star", Description: "Star an entry", Expose: affordances.ExposeSession}, affordances.Post[entryInput](nil))
	h := site.Handler(app)
	for _, input := range []string{`{"id":7,"starred":true,"pinned":true,"public":true}`, `{"id":7,"starred":false,"pinned":false,"public":false}`} {
		if res := do(t, h, post("/entries/7", `{"action":"star","input":`+input+`}`, "Authorization: Bearer tok")); !res.delta.OK {
			t.Fatalf("%s: got %d %s, want ok", input, res.status, res.body)
		}
	}
	if want := []string{"true true true", "false false false"}; !slices.Equal(got, want) {
		t.Errorf("the handler read starred, pinned, public: got %q, want %q", got, want)
	}
}

// TestPostUnderAPrefix: under SiteOptions.Prefix, where the app's own
// redirects carry the prefix (http.StripPrefix), a redirect to its
// sign-in page is still unauthorized and any other the delta's, on the
// wire's path.
func TestPostUnderAPrefix(t *testing.T) {
	app := http.NewServeMux()
	app.HandleFunc("POST /subscribe", func(w http.ResponseWriter, r *http.Request) {
		to := "/app/feeds/1"
		if r.PostFormValue("url") == "" {
			to = "/app/login"
		}
		http.Redirect(w, r, to, http.StatusSeeOther)
	})
	site := affordances.NewSite(&affordances.SiteOptions{Prefix: "/app", Authenticate: bearerAda})
	rt := site.Route("/subscribe", nil)
	affordances.AddAction(rt, &affordances.Action{Name: "subscribe", Description: "Follow a feed", Expose: affordances.ExposeSession},
		affordances.PostWith[feedInput](nil, &affordances.PostOptions{SignIn: "/login"}))
	h := http.StripPrefix("/app", site.Handler(app))
	if res := do(t, h, post("/app/subscribe", `{"action":"subscribe","input":{"url":"https://a.test/"}}`, "Authorization: Bearer tok")); !res.delta.OK || res.delta.Redirect != "/app/feeds/1" {
		t.Errorf("a redirect: got %d %s, want ok to /app/feeds/1", res.status, res.body)
	}
	if res := do(t, h, post("/app/subscribe", `{"action":"subscribe","input":{"url":""}}`, "Authorization: Bearer tok")); res.code() != affordances.Unauthorized || res.delta.Error.Message != "Sign in to do this." {
		t.Errorf("to the sign-in page: got %d %s, want unauthorized", res.status, res.body)
	}
}

// TestPostAsTheAppRoutesIt: an htmx app's handlers, routed on PUT and
// DELETE and reading the body with ParseMultipartForm, carry an action
// declared with PostOptions.Method and Multipart. Before, every post was
// a urlencoded POST: 405 Method Not Allowed from the mux, and a 400 from
// ParseMultipartForm.
func TestPostAsTheAppRoutesIt(t *testing.T) {
	var got []string
	app := http.NewServeMux()
	app.HandleFunc("PUT /items/{id}", func(w http.ResponseWriter, r *http.Request) {
		got = append(got, "put "+r.PathValue("id")+" "+r.FormValue("title"))
		w.Header().Set("HX-Redirect", "/items/"+r.PathValue("id"))
	})
	app.HandleFunc("PATCH /items/{id}", func(w http.ResponseWriter, r *http.Request) {
		if err := r.ParseMultipartForm(1 << 20); err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		got = append(got, "patch "+r.PathValue("id")+" "+r.FormValue("title"))
		w.WriteHeader(http.StatusNoContent)
	})
	app.HandleFunc("DELETE /items/{id}", func(w http.ResponseWriter, r *http.Request) {
		got = append(got, "delete "+r.PathValue("id")+" "+r.FormValue("title"))
		w.Header().Set("HX-Redirect", "/items/")
	})
	type itemInput struct {
		ID    int    `json:"id"`
		Title string `json:"title"`
	}
	path := func(_ *affordances.Request, in itemInput) string { return "/items/" + strconv.Itoa(in.ID) }
	site := affordances.NewSite(&affordances.SiteOptions{Authenticate: bearerAda})
	rt := site.Route("/items/{id}", nil)
	for name, opts := range map[string]*affordances.PostOptions{
		"rename":    {Method: http.MethodPut},
		"retitle":   {Method: http.MethodPatch, Multipart: true},
		"deleteOne": {Method: http.MethodDelete},
	} {
		affordances.AddAction(rt, &affordances.Action{Name: name, Description: name, Expose: affordances.ExposeSession}, affordances.PostWith(path, opts))
	}
	h := site.Handler(app)
	for _, tc := range []struct{ action, redirect string }{
		{"rename", "/items/7"},
		{"retitle", ""},
		{"deleteOne", "/items/"},
	} {
		if res := do(t, h, post("/items/7", `{"action":"`+tc.action+`","input":{"id":7,"title":"Milk"}}`, "Authorization: Bearer tok")); !res.delta.OK || res.delta.Redirect != tc.redirect {
			t.Errorf("%s: got %d %s, want ok to %q", tc.action, res.status, res.body, tc.redirect)
		}
	}
	if want := []string{"put 7 Milk", "patch 7 Milk", "delete 7 Milk"}; !slices.Equal(got, want) {
		t.Errorf("the handlers read: got %q, want %q", got, want)
	}
}

// TestPostJSON: an action carried by an app's JSON endpoint, declared
// with PostJSON, posts its input as the JSON body and has the endpoint's
// JSON answer as its output; a 412 or 409 is unavailable, in the words of
// the answer's "error", "message", "error_message" (miniflux's) or
// "detail" (RFC 9457) field. Before, Post sent form values
// only (the endpoint refused them), dropped the answer, and a 412 was
// internal.
func TestPostJSON(t *testing.T) {
	type itemInput struct {
		Title string `json:"title"`
	}
	type itemOutput struct {
		ID int `json:"id"`
	}
	app := http.NewServeMux()
	app.HandleFunc("POST /api/items", func(w http.ResponseWriter, r *http.Request) {
		var in itemInput
		if r.Header.Get("Content-Type") != "application/json" || json.NewDecoder(r.Body).Decode(&in) != nil {
			http.Error(w, "not JSON", http.StatusUnsupportedMediaType)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		switch in.Title {
		case "old":
			w.WriteHeader(http.StatusPreconditionFailed)
			io.WriteString(w, `{"error":"stale"}`)
		case "twice":
			w.WriteHeader(http.StatusConflict)
			io.WriteString(w, `{"message":"You have this item already."}`)
		case "":
			w.WriteHeader(http.StatusBadRequest)
			io.WriteString(w, `{"error":{"code":"empty","message":"Give it a title."}}`)
		case "long":
			w.WriteHeader(http.StatusBadRequest)
			io.WriteString(w, `{"error_message":"The title is too long."}`) // miniflux's
		case "oauth":
			w.WriteHeader(http.StatusBadRequest)
			io.WriteString(w, `{"error":"invalid_request","error_description":"The title is a word too long."}`) // the description says it
		case "problem":
			w.Header().Set("Content-Type", "application/problem+json")
			w.WriteHeader(http.StatusUnprocessableEntity)
			io.WriteString(w, `{"type":"about:blank","title":"Unprocessable","detail":"Titles are words."}`) // RFC 9457
		default:
			w.WriteHeader(http.StatusCreated)
			io.WriteString(w, `{"id": 7}`)
		}
	})
	site := affordances.NewSite(&affordances.SiteOptions{Authenticate: bearerAda})
	rt := site.Route("/items", nil)
	affordances.AddAction(rt, &affordances.Action{Name: "addItem", Description: "Add an item", Expose: affordances.ExposeSession},
		affordances.PostJSON[itemInput, itemOutput](func(*affordances.Request, itemInput) string { return "/api/items" }, nil))
	h := site.Handler(app)
	for _, tc := range []struct {
		title, output string
		code          affordances.Code
		message       string
	}{
		{title: "Milk", output: `{"id":7}`},
		{title: "old", code: affordances.Unavailable, message: "stale"},
		{title: "twice", code: affordances.Unavailable, message: "You have this item already."},
		{title: "", code: affordances.InvalidInput, message: "Give it a title."},
		{title: "long", code: affordances.InvalidInput, message: "The title is too long."},
		{title: "problem", code: affordances.InvalidInput, message: "Titles are words."},
		{title: "oauth", code: affordances.InvalidInput, message: "The title is a word too long."},
	} {
		res := do(t, h, post("/items", `{"action":"addItem","input":{"title":"`+tc.title+`"}}`, "Authorization: Bearer tok"))
		var msg, output string
		if res.delta.Error != nil {
			msg = res.delta.Error.Message
		}
		if res.delta.Output != nil {
			output = mustJSON(res.delta.Output)
		}
		if res.code() != tc.code || msg != tc.message || output != tc.output {
			t.Errorf("%q: got %d %s; want code %q, message %q, output %s", tc.title, res.status, res.body, tc.code, tc.message, tc.output)
		}
	}
}

// TestPostRefusalsSaidElsewhere: an htmx app whose handler says no in an
// HX-Trigger event of a 200 declares it in one line (PostOptions.Refused,
// HXTrigger), and one that tells the person over a WebSocket calls
// Refuse where it does; the agent reads the refusal in the app's words,
// and the app's success still reads as done. Before, both refusals read
// as ok: a 200 the app declared done, a 204.
func TestPostRefusalsSaidElsewhere(t *testing.T) {
	var tab []string // what the WebSocket carried to the person's tab
	notify := func(r *http.Request, msg string) {
		tab = append(tab, msg)
		if a := affordances.ActionFrom(r.Context()); a != nil {
			a.Refuse(errors.New(msg))
		}
	}
	var made []string
	app := http.NewServeMux()
	app.HandleFunc("PUT /todos/", func(w http.ResponseWriter, r *http.Request) {
		if err := r.ParseMultipartForm(1 << 20); err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		switch title := r.FormValue("title"); title {
		case "":
			w.Header().Set("HX-Trigger", `{"showError":{"level":"error","message":"A todo needs a title."}}`)
			io.WriteString(w, `<li class="empty"></li>`)
		case "dup":
			w.Header().Set("HX-Trigger-After-Settle", `{"showError":"You have this todo already."}`)
			io.WriteString(w, `<li></li>`)
		case "theirs":
			w.Header().Set("HX-Trigger", `{"showError":"Only the list's owner adds to it."}`)
			w.WriteHeader(http.StatusForbidden)
		default:
			made = append(made, title)
			w.Header().Set("HX-Trigger", `{"todoAdded":{"id":1}}`)
			io.WriteString(w, `<li>`+title+`</li>`)
		}
	})
	app.HandleFunc("DELETE /todos/{id}", func(w http.ResponseWriter, r *http.Request) {
		if r.PathValue("id") == "1" {
			notify(r, "This todo is shared: ask its owner.")
		}
		w.WriteHeader(http.StatusNoContent)
	})
	type todo struct {
		ID    int    `json:"id,omitempty"`
		Title string `json:"title,omitempty"`
	}
	site := affordances.NewSite(&affordances.SiteOptions{Authenticate: bearerAda})
	rt := site.Route("/todos/", nil)
	affordances.AddAction(rt, &affordances.Action{Name: "addTodo", Description: "Add a todo", Expose: affordances.ExposeSession},
		affordances.PostWith[todo](nil, &affordances.PostOptions{
			Method: http.MethodPut, Multipart: true,
			Refused: affordances.HXTrigger("showError"),
			Done:    func(res *http.Response) bool { return res.StatusCode == http.StatusOK },
		}))
	affordances.AddAction(rt, &affordances.Action{Name: "deleteTodo", Description: "Delete a todo", Expose: affordances.ExposeSession},
		affordances.PostWith(func(_ *affordances.Request, in todo) string { return "/todos/" + strconv.Itoa(in.ID) },
			&affordances.PostOptions{Method: http.MethodDelete}))
	h := site.Handler(app)
	for _, tc := range []struct {
		action, input string
		code          affordances.Code
		message       string
	}{
		{"addTodo", `{"title":""}`, affordances.Unavailable, "A todo needs a title."},
		{"addTodo", `{"title":"dup"}`, affordances.Unavailable, "You have this todo already."},
		{"addTodo", `{"title":"theirs"}`, affordances.Unauthorized, "Only the list's owner adds to it."}, // a 403: not internal
		{"addTodo", `{"title":"Milk"}`, "", ""},
		{"deleteTodo", `{"id":1}`, affordances.Unavailable, "This todo is shared: ask its owner."},
		{"deleteTodo", `{"id":2}`, "", ""},
	} {
		res := do(t, h, post("/todos/", `{"action":"`+tc.action+`","input":`+tc.input+`}`, "Authorization: Bearer tok"))
		msg := ""
		if res.delta.Error != nil {
			msg = res.delta.Error.Message
		}
		if res.code() != tc.code || msg != tc.message || res.delta.OK != (tc.code == "") {
			t.Errorf("%s %s: got %d %s; want code %q, message %q", tc.action, tc.input, res.status, res.body, tc.code, tc.message)
		}
	}
	if !slices.Equal(made, []string{"Milk"}) || len(tab) != 1 {
		t.Errorf("the app made %q and told the tab %q", made, tab)
	}
}

// TestHXTrigger: the reading of an HX-Trigger header finds the event in a
// list of names, as a string detail, as an object's message, and nothing
// when another event is named.
func TestHXTrigger(t *testing.T) {
	read := affordances.HXTrigger("showError")
	for header, want := range map[string]string{
		"showError":                        "showError",
		"saved, showError":                 "showError",
		`{"showError":"No  title."}`:       "No title.",
		`{"showError":{"message":"Late"}}`: "Late",
		`{"showError":3}`:                  "showError",
		`{"saved":"showError"}`:            "",
		"saved":                            "",
		"":                                 "",
		`{"showError":`:                    "",
	} {
		res := &http.Response{Header: http.Header{"Hx-Trigger": {header}}}
		if got := read(res); got != want {
			t.Errorf("HX-Trigger %q: got %q, want %q", header, got, want)
		}
	}
}
