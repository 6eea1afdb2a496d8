package affordances_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"html/template"
	"io"
	"mime/multipart"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/affordances/affordances-go"
)

// settingsInput exercises every way a form value is decoded.
type settingsInput struct {
	Count   int      `json:"count" affordances:"minimum=0,maximum=9"`
	Ratio   float64  `json:"ratio,omitempty"`
	Public  bool     `json:"public"`
	Tags    []string `json:"tags,omitempty"`
	Due     string   `json:"due,omitempty" affordances:"format=date"`
	Note    string   `json:"note,omitempty"`
	Address struct {
		City string `json:"city" jsonschema:"the city, in its own language" affordances:"minLength=1"`
	} `json:"address"`
}

// formSite is a page with one counter and actions of every kind, rendered
// by a page that prints what [affordances.Page.Form] says.
func formSite(t *testing.T, opts *affordances.SiteOptions) (http.Handler, *formState) {
	st := &formState{}
	if opts == nil {
		opts = &affordances.SiteOptions{}
	}
	opts.Authenticate = func(r *http.Request) (affordances.Principal, error) {
		if c, err := r.Cookie("sid"); err == nil && c.Value == "s1" {
			return affordances.Principal{ID: "u1"}, nil
		}
		return affordances.Principal{}, nil
	}
	site := affordances.NewSite(opts)
	home := site.Route("/{$}", &affordances.RouteOptions{State: func(context.Context, *affordances.Request) (*affordances.State, error) {
		return &affordances.State{Entities: map[string]any{"counter": st.get()}}, nil
	}})
	affordances.AddAction(home, &affordances.Action{Name: "increment", Description: "Add to the counter", Expose: affordances.ExposePublic},
		func(_ context.Context, r *affordances.Request, in byInput) (struct{}, error) {
			r.SetMessage(fmt.Sprintf("The counter is %d.", st.add(max(in.By, 1))))
			return struct{}{}, nil
		})
	affordances.AddAction(home, &affordances.Action{Name: "addNote", Description: "Add a note", Expose: affordances.ExposeSession},
		func(_ context.Context, r *affordances.Request, in noteInput) (struct{}, error) {
			st.add(1)
			r.SetRedirect("/?noted=1")
			return struct{}{}, nil
		})
	affordances.AddAction(home, &affordances.Action{Name: "reset", Description: "Set the counter to zero", Expose: affordances.ExposeConfirm,
		Guard: func(_ context.Context, r *affordances.Request) (bool, string) {
			return r.State.Entities["counter"].(int) > 0, "The counter is already zero."
		},
		Summary: affordances.Summarize(func(_ context.Context, r *affordances.Request, _ struct{}) (string, error) {
			return fmt.Sprintf("Reset the counter from %d to 0.", r.State.Entities["counter"]), nil
		}),
	}, func(context.Context, *affordances.Request, struct{}) (struct{}, error) {
		st.set(0)
		return struct{}{}, nil
	})
	affordances.AddAction(home, &affordances.Action{Name: "settings", Description: "Save settings", Expose: affordances.ExposePublic},
		func(_ context.Context, r *affordances.Request, in settingsInput) (struct{}, error) {
			b, _ := json.Marshal(in)
			st.mu.Lock()
			st.saved = string(b)
			st.mu.Unlock()
			return struct{}{}, nil
		})
	affordances.AddAction(home, &affordances.Action{Name: "chooseAddress", Description: "Fails with its own issue", Expose: affordances.ExposePublic},
		func(context.Context, *affordances.Request, struct {
			Address string `json:"address"`
		}) (struct{}, error) {
			return struct{}{}, &affordances.Error{Code: affordances.InvalidInput, Message: `You have no address "moon".`, Issues: []affordances.Issue{{Path: "/address", Message: "no such address"}}}
		})
	affordances.AddAction(home, &affordances.Action{Name: "rawSchema", Description: "A schema with a boolean subschema", Expose: affordances.ExposePublic,
		Input: json.RawMessage(`{"type":"object","properties":{"n":{"type":"integer"},"extra":true}}`)},
		func(_ context.Context, r *affordances.Request, in map[string]any) (struct{}, error) {
			b, _ := json.Marshal(in)
			st.mu.Lock()
			st.saved = string(b)
			st.mu.Unlock()
			return struct{}{}, nil
		})
	page := template.Must(template.New("").Parse(`{{$p := .}}{{with .Form}}{{$a := .Action}}action={{.Action}} message={{.Message}}{{with .Error}} code={{.Code}} error={{.Message}}{{end}} confirm={{.Confirm}}` +
		` by={{(($p.Action $a).Field "by").Value}} issue(by)={{(($p.Action $a).Field "by").Issue}} attrs(by)=<i {{(($p.Action $a).Field "by").Attrs}}>` +
		` issue(due)={{(($p.Action $a).Field "due").Issue}} issue(address.city)={{(($p.Action $a).Field "address.city").Issue}}` +
		` issue(count)={{(($p.Action $a).Field "count").Issue}} issue(public)={{(($p.Action $a).Field "public").Issue}} attrs(address.city)=<i {{(($p.Action $a).Field "address.city").Attrs}}>{{.ConfirmFields}}{{end}}`))
	mux := http.NewServeMux()
	mux.HandleFunc("GET /{$}", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		page.Execute(w, affordances.PageFrom(r.Context()))
	})
	mux.HandleFunc("POST /{$}", func(w http.ResponseWriter, r *http.Request) {
		io.WriteString(w, "the app's own form: "+r.PostFormValue("name"))
		if f, h, err := r.FormFile("upload"); err == nil {
			f.Close()
			fmt.Fprintf(w, " upload=%d", h.Size)
		}
	})
	return site.Handler(mux), st
}

type formState struct {
	mu      sync.Mutex
	counter int
	saved   string
}

func (s *formState) get() int  { s.mu.Lock(); defer s.mu.Unlock(); return s.counter }
func (s *formState) set(n int) { s.mu.Lock(); defer s.mu.Unlock(); s.counter = n }
func (s *formState) add(n int) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.counter += n
	return s.counter
}

// postForm posts values as a browser on the site's own page would.
func postForm(h http.Handler, body string, headers ...string) *httptest.ResponseRecorder {
	r := httptest.NewRequest(http.MethodPost, "http://shop.test/", strings.NewReader(body))
	r.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	r.Header.Set("Origin", "http://shop.test")
	r.Header.Set("Sec-Fetch-Site", "same-origin")
	with(r, headers)
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, r)
	return rec
}

// TestFormBinding: a person's form runs the declared action through the
// same seven steps as an agent's call, with the documented answers
// (docs/protocol.md decision 2), and a refusal changes nothing.
func TestFormBinding(t *testing.T) {
	for _, tc := range []struct {
		name       string
		before     int // the counter before
		body       string
		headers    []string
		wantStatus int
		wantBody   []string // in the page rendered for the answer
		wantAfter  int
	}{
		{"success: 303 back to the page", 0, "_action=increment&by=2", nil, 303, nil, 2},
		{"cross-site: refused", 0, "_action=increment&by=2", []string{"Sec-Fetch-Site: cross-site"}, 403, []string{"code=unauthorized", "posted from another site"}, 0},
		{"other Origin without Sec-Fetch-Site: refused", 0, "_action=increment", []string{"Sec-Fetch-Site: ", "Origin: http://evil.test"}, 403, []string{"code=unauthorized"}, 0},
		{"not a number: an issue at its field, the value kept", 0, "_action=increment&by=two", nil, 400, []string{"code=invalid_input", "by=two", "issue(by)=must be a whole number", `attrs(by)=<i name="by" aria-invalid="true" toolparamdescription="how much to add">`, "Check the fields"}, 0},
		{"over the schema's maximum: an issue at its field", 0, "_action=increment&by=99", nil, 400, []string{"code=invalid_input", "by=99", "issue(by)=must be at most 10"}, 0},
		{"the action's own invalid_input keeps its message", 0, "_action=chooseAddress&address=moon", nil, 400, []string{`error=You have no address &#34;moon&#34;.`}, 0},
		{"the same field twice", 0, "_action=increment&by=1&by=2", nil, 400, []string{"issue(by)=was sent 2 times"}, 0},
		{"a session action without a session", 0, "_action=addNote&text=hi", nil, 401, []string{"code=unauthorized", "Sign in"}, 0},
		{"a session action with one: 303 to its redirect", 0, "_action=addNote&text=hi", []string{"Cookie: sid=s1"}, 303, nil, 1},
		{"the guard says no: 409 with its reason", 0, "_action=reset", []string{"Cookie: sid=s1"}, 409, []string{"code=unavailable", "error=The counter is already zero."}, 0},
		{"confirm without confirmation: the summary, nothing runs", 3, "_action=reset", []string{"Cookie: sid=s1"}, 200, []string{"confirm=Reset the counter from 3 to 0.", `name="_action" value="reset"`, `name="_confirm" value="yes"`}, 3},
		{"confirm with the person's confirmation: it runs", 3, "_action=reset&_confirm=yes", []string{"Cookie: sid=s1"}, 303, nil, 0},
		{"_confirm that is not yes confirms nothing", 3, "_action=reset&_confirm=no", []string{"Cookie: sid=s1"}, 200, []string{"confirm=Reset the counter from 3 to 0."}, 3},
		{"no action field: the app's own form", 0, "name=x", nil, 200, []string{"the app's own form: x"}, 0},
		{"an action the route lacks: the app's own form", 0, "_action=nosuch&name=y", nil, 200, []string{"the app's own form: y"}, 0},
		{"the action named twice", 0, "_action=increment&_action=increment&by=2", nil, 400, []string{"code=invalid_input"}, 0},
		{"confirmed twice", 3, "_action=reset&_confirm=yes&_confirm=yes", []string{"Cookie: sid=s1"}, 400, []string{"code=invalid_input"}, 3},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h, st := formSite(t, nil)
			st.set(tc.before)
			rec := postForm(h, tc.body, tc.headers...)
			if rec.Code != tc.wantStatus {
				t.Errorf("status: got %d, want %d (%s)", rec.Code, tc.wantStatus, rec.Body)
			}
			for _, want := range tc.wantBody {
				if !strings.Contains(rec.Body.String(), want) {
					t.Errorf("page: got %q, want it to contain %q", rec.Body, want)
				}
			}
			if got := st.get(); got != tc.wantAfter {
				t.Errorf("counter: got %d, want %d", got, tc.wantAfter)
			}
			if got, want := rec.Header().Get("WWW-Authenticate") != "", rec.Code == http.StatusUnauthorized; got != want {
				t.Errorf("WWW-Authenticate %q on a %d", rec.Header().Get("WWW-Authenticate"), rec.Code)
			}
		})
	}
}

// TestFormConfirmTwice: a second click on the confirmation page's button
// (the same form, its key) gets the first click's answer; the action does
// not run again (here its guard would refuse it).
func TestFormConfirmTwice(t *testing.T) {
	h, st := formSite(t, nil)
	st.set(3)
	first := postForm(h, "_action=reset&_confirm=yes&_key=click-1", "Cookie: sid=s1")
	second := postForm(h, "_action=reset&_confirm=yes&_key=click-1", "Cookie: sid=s1")
	if first.Code != 303 || second.Code != 303 || second.Header().Get("Idempotent-Replayed") != "true" {
		t.Errorf("two clicks: got %d and %d (replayed %q), want the first answer twice", first.Code, second.Code, second.Header().Get("Idempotent-Replayed"))
	}
	if third := postForm(h, "_action=reset&_confirm=yes&_key=click-2", "Cookie: sid=s1"); third.Code != http.StatusConflict {
		t.Errorf("another key: got %d, want the guard's 409 (the counter is zero)", third.Code)
	}
}

// TestFormOriginConfigured: with SiteOptions.Origin set, a form is
// refused when its Origin is another, even when the browser calls it
// same-origin: a page served under another name (DNS rebinding of a
// loopback demo) posts nothing.
func TestFormOriginConfigured(t *testing.T) {
	h, st := formSite(t, &affordances.SiteOptions{Origin: "http://shop.test"})
	r := httptest.NewRequest(http.MethodPost, "http://rebound.evil/", strings.NewReader("_action=increment"))
	r.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	r.Header.Set("Origin", "http://rebound.evil")
	r.Header.Set("Sec-Fetch-Site", "same-origin")
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, r)
	if rec.Code != http.StatusForbidden || st.get() != 0 {
		t.Errorf("rebound form: got %d, counter %d; want 403 and nothing run", rec.Code, st.get())
	}
	if rec := postForm(h, "_action=increment"); rec.Code != http.StatusSeeOther || st.get() != 1 {
		t.Errorf("the site's own form: got %d %s", rec.Code, rec.Body)
	}
	r = httptest.NewRequest(http.MethodPost, "http://shop.test/", strings.NewReader("_action=increment"))
	r.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	r.Header["Origin"] = []string{"http://shop.test", "http://evil.example"}
	rec = httptest.NewRecorder()
	h.ServeHTTP(rec, r)
	if rec.Code != http.StatusForbidden || st.get() != 1 {
		t.Errorf("two Origin headers on a form: got %d, counter %d; want 403 and nothing run", rec.Code, st.get())
	}
}

// TestFormOriginScheme: without SiteOptions.Origin, the site's origin is
// the request's own scheme, host and port (docs/protocol.md decisions 4 and 13), so a
// form whose Origin names another scheme or port of the same host is
// refused, even when the browser calls it same-origin; Origin: null with
// Sec-Fetch-Site: same-origin stays accepted (docs/protocol.md decision 13).
func TestFormOriginScheme(t *testing.T) {
	for _, tc := range []struct {
		name    string
		https   bool // the site is served over TLS
		headers []string
		status  int
	}{
		{"http site, its own Origin", false, []string{"Origin: http://shop.test"}, 303},
		{"http site, its own Origin with the default port", false, []string{"Origin: http://shop.test:80"}, 303},
		{"http site, Origin https", false, []string{"Origin: https://shop.test"}, 403},
		{"http site, Origin https, no Sec-Fetch-Site", false, []string{"Origin: https://shop.test", "Sec-Fetch-Site: "}, 403},
		{"http site, Origin of another port", false, []string{"Origin: http://shop.test:8080"}, 403},
		{"https site, its own Origin", true, []string{"Origin: https://shop.test"}, 303},
		{"https site, Origin http", true, []string{"Origin: http://shop.test"}, 403},
		{"http site, no Origin", false, []string{"Origin: "}, 303},
		{"http site, Origin null, same-origin", false, []string{"Origin: null"}, 303},
	} {
		site := "http://shop.test/"
		if tc.https {
			site = "https://shop.test/"
		}
		t.Run(tc.name, func(t *testing.T) {
			checkFormOrigin(t, nil, site, append([]string{"Sec-Fetch-Site: same-origin"}, tc.headers...), tc.status)
		})
	}
}

// TestFormOriginNull: docs/protocol.md decision 13. With SiteOptions.Origin set, a
// same-origin form under Referrer-Policy: no-referrer (Origin: null,
// Sec-Fetch-Site: same-origin) runs; null without that word from the
// browser, a rebinding Host, and a post with neither header are refused,
// and nothing runs.
func TestFormOriginNull(t *testing.T) {
	for _, tc := range []struct {
		name    string
		host    string
		headers []string
		status  int
	}{
		{"Origin null, same-origin", "shop.test", []string{"Origin: null", "Sec-Fetch-Site: same-origin"}, 303},
		{"Origin null, no Sec-Fetch-Site", "shop.test", []string{"Origin: null"}, 403},
		{"Origin null, same-site", "shop.test", []string{"Origin: null", "Sec-Fetch-Site: same-site"}, 403},
		{"Origin null, cross-site", "shop.test", []string{"Origin: null", "Sec-Fetch-Site: cross-site"}, 403},
		{"Origin null, same-origin, a rebinding Host", "rebound.evil", []string{"Origin: null", "Sec-Fetch-Site: same-origin"}, 403},
		{"no Origin, same-origin, a rebinding Host", "rebound.evil", []string{"Sec-Fetch-Site: same-origin"}, 403},
		{"no Origin, same-origin", "shop.test", []string{"Sec-Fetch-Site: same-origin"}, 303},
		{"neither header", "shop.test", nil, 403},
		{"the site's Origin, no Sec-Fetch-Site", "shop.test", []string{"Origin: http://shop.test"}, 303},
	} {
		t.Run(tc.name, func(t *testing.T) {
			checkFormOrigin(t, &affordances.SiteOptions{Origin: "http://shop.test"}, "http://"+tc.host+"/", tc.headers, tc.status)
		})
	}
}

// checkFormOrigin posts the form of increment to url with headers, and
// checks the answer is status (303 or 403) and that it ran only on 303.
func checkFormOrigin(t *testing.T, opts *affordances.SiteOptions, url string, headers []string, status int) {
	t.Helper()
	h, st := formSite(t, opts)
	r := httptest.NewRequest(http.MethodPost, url, strings.NewReader("_action=increment"))
	r.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	with(r, headers)
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, r)
	want := map[int]int{303: 1, 403: 0}[status]
	if rec.Code != status || st.get() != want {
		t.Errorf("got %d, counter %d; want %d, counter %d", rec.Code, st.get(), status, want)
	}
}

// TestFormSuccessMessage: after a success the person lands on the delta's
// redirect (or the page) and reads the delta's message there, once.
func TestFormSuccessMessage(t *testing.T) {
	h, _ := formSite(t, nil)
	rec := postForm(h, "_action=increment&by=4")
	if got := rec.Header().Get("Location"); rec.Code != http.StatusSeeOther || got != "/" {
		t.Fatalf("got %d Location %q, want 303 /", rec.Code, got)
	}
	var flash *http.Cookie
	for _, c := range rec.Result().Cookies() {
		flash = c
	}
	if flash == nil {
		t.Fatal("no cookie carries the message")
	}
	next := httptest.NewRequest(http.MethodGet, "http://shop.test/", nil)
	next.AddCookie(flash)
	page := httptest.NewRecorder()
	h.ServeHTTP(page, next)
	if want := "action=increment message=The counter is 4."; !strings.Contains(page.Body.String(), want) {
		t.Errorf("next page: got %q, want %q", page.Body, want)
	}
	if c := page.Result().Cookies(); len(c) != 1 || c[0].MaxAge >= 0 {
		t.Errorf("next page: got cookies %v, want the message's cleared", c)
	}

	// A cookie the site did not sign shows nothing: a sibling subdomain
	// or a plain-HTTP answer could have planted it.
	for _, forged := range []string{flash.Value + "x", "aW5jcmVtZW50ClNpZ24gaW4gYWdhaW4gYXQgZXZpbC5leGFtcGxl", strings.SplitN(flash.Value, ".", 2)[0] + ".AAAA"} {
		r := httptest.NewRequest(http.MethodGet, "http://shop.test/", nil)
		r.AddCookie(&http.Cookie{Name: flash.Name, Value: forged})
		page := httptest.NewRecorder()
		h.ServeHTTP(page, r)
		if strings.Contains(page.Body.String(), "action=") {
			t.Errorf("forged flash %q: shown: %s", forged, page.Body)
		}
	}
	// Another site, or another instance with another secret, does not
	// read it either.
	other, _ := formSite(t, nil)
	r := httptest.NewRequest(http.MethodGet, "http://shop.test/", nil)
	r.AddCookie(flash)
	page = httptest.NewRecorder()
	other.ServeHTTP(page, r)
	if strings.Contains(page.Body.String(), "The counter is 4.") {
		t.Errorf("another site's secret: the flash is shown: %s", page.Body)
	}
	// Instances that share a Secret read each other's.
	a, _ := formSite(t, &affordances.SiteOptions{SigningKey: []byte("shared")})
	b, _ := formSite(t, &affordances.SiteOptions{SigningKey: []byte("shared")})
	posted := postForm(a, "_action=increment&by=2")
	r = httptest.NewRequest(http.MethodGet, "http://shop.test/", nil)
	for _, c := range posted.Result().Cookies() {
		r.AddCookie(c)
	}
	page = httptest.NewRecorder()
	b.ServeHTTP(page, r)
	if !strings.Contains(page.Body.String(), "message=The counter is 2.") {
		t.Errorf("a shared SigningKey: the other instance shows %q", page.Body)
	}

	redirected := postForm(h, "_action=addNote&text=hi", "Cookie: sid=s1")
	if got := redirected.Header().Get("Location"); got != "/?noted=1" {
		t.Errorf("redirect: got Location %q, want the delta's /?noted=1", got)
	}
}

// TestFormDecoding: values are decoded by the input schema (integers,
// numbers, booleans, repeated fields, nested fields, absent checkboxes),
// then validated by the same schema, format included.
func TestFormDecoding(t *testing.T) {
	for _, tc := range []struct {
		name, body string
		wantStatus int
		want       string // the decoded input, or what the page shows
	}{
		{"every type", "count=3&ratio=0.5&public=on&tags=a&tags=b&due=2026-12-24&address.city=Paris&_action=settings&csrf=ignored", 303,
			`{"count":3,"ratio":0.5,"public":true,"tags":["a","b"],"due":"2026-12-24","address":{"city":"Paris"}}`},
		{"an absent checkbox is false, an empty optional field absent", "count=0&due=&address.city=Lyon&_action=settings", 303,
			`{"count":0,"public":false,"address":{"city":"Lyon"}}`},
		{"a date that is not one", "count=1&due=2026-13-45&address.city=Oslo&_action=settings", 400, "issue(due)=must be a real date, as YYYY-MM-DD"},
		{"a missing required field is an issue at the field", "count=1&_action=settings", 400, "issue(address.city)=is required"},
		{"a nested field's attributes: its name, invalid, its description", "count=1&_action=settings", 400,
			`attrs(address.city)=<i name="address.city" aria-invalid="true" toolparamdescription="the city, in its own language">`},
		{"an empty required number is missing", "count=&address.city=Rome&_action=settings", 400, "issue(count)=is required"},
		{"a checkbox that is not one", "count=1&public=maybe&address.city=Rome&_action=settings", 400, "must be true or false"},
		{"invalid UTF-8", "count=1&note=%FF&address.city=Rome&_action=settings", 400, "code=invalid_input"},
		{"a hidden false before its checkbox: the checkbox says", "count=1&public=false&public=on&address.city=Rome&_action=settings", 303,
			`{"count":1,"public":true,"address":{"city":"Rome"}}`},
		{"a boolean subschema beside a typed one", "n=3&extra=x&_action=rawSchema", 303, `{"extra":"x","n":3}`},
		{"every issue in one answer: one undecodable, one missing", "count=two&_action=settings", 400, "issue(address.city)=is required issue(count)=must be a whole number"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h, st := formSite(t, nil)
			rec := postForm(h, tc.body)
			if rec.Code != tc.wantStatus {
				t.Errorf("status: got %d, want %d (%s)", rec.Code, tc.wantStatus, rec.Body)
			}
			got := st.saved
			if tc.wantStatus != http.StatusSeeOther {
				got = rec.Body.String()
				if st.saved != "" {
					t.Errorf("the action ran with %s", st.saved)
				}
			}
			if !strings.Contains(got, tc.want) {
				t.Errorf("got %s, want %s", got, tc.want)
			}
		})
	}
}

// TestFormBodyBounded: a form larger than the limit, urlencoded or
// multipart, is refused with 413 before anything runs, and no part of it
// reaches a temporary file.
func TestFormBodyBounded(t *testing.T) {
	tmp := t.TempDir()
	t.Setenv("TMPDIR", tmp)
	h, st := formSite(t, &affordances.SiteOptions{MaxBodyBytes: 4 << 10})

	rec := postForm(h, "_action=increment&by=1&pad="+strings.Repeat("x", 8<<10))
	if rec.Code != http.StatusRequestEntityTooLarge || !strings.Contains(rec.Body.String(), "larger than 4 KiB") {
		t.Errorf("urlencoded: got %d %s, want 413 and the page saying so", rec.Code, rec.Body)
	}

	var body bytes.Buffer
	mw := multipart.NewWriter(&body)
	mw.WriteField("_action", "increment")
	fw, _ := mw.CreateFormFile("upload", "big.bin")
	fw.Write(bytes.Repeat([]byte("y"), 64<<10))
	mw.Close()
	r := httptest.NewRequest(http.MethodPost, "http://shop.test/", &body)
	r.Header.Set("Content-Type", mw.FormDataContentType())
	r.Header.Set("Sec-Fetch-Site", "same-origin")
	mrec := httptest.NewRecorder()
	h.ServeHTTP(mrec, r)
	if mrec.Code != http.StatusRequestEntityTooLarge {
		t.Errorf("multipart: got %d %s, want 413", mrec.Code, mrec.Body)
	}
	if st.get() != 0 {
		t.Errorf("counter: got %d, want 0: nothing runs", st.get())
	}
	if files, _ := os.ReadDir(tmp); len(files) != 0 {
		t.Errorf("temporary files: got %v, want none", files)
	}

	// The app's own upload, naming no action, reaches the app whole,
	// however large.
	body.Reset()
	mw = multipart.NewWriter(&body)
	mw.WriteField("name", "avatar")
	fw, _ = mw.CreateFormFile("upload", "me.png")
	fw.Write(bytes.Repeat([]byte("z"), 64<<10))
	mw.Close()
	r = httptest.NewRequest(http.MethodPost, "http://shop.test/", &body)
	r.Header.Set("Content-Type", mw.FormDataContentType())
	r.Header.Set("Sec-Fetch-Site", "same-origin")
	mrec = httptest.NewRecorder()
	h.ServeHTTP(mrec, r)
	if got := mrec.Body.String(); mrec.Code != 200 || got != "the app's own form: avatar upload=65536" {
		t.Errorf("the app's own upload: got %d %q, want it handled by the app, whole", mrec.Code, got)
	}
	// So does its large urlencoded form.
	if rec := postForm(h, "name=big&pad="+strings.Repeat("x", 8<<10)); rec.Body.String() != "the app's own form: big" {
		t.Errorf("the app's own large form: got %d %q", rec.Code, rec.Body)
	}

	// Within the limit, a multipart form runs the action like any form.
	body.Reset()
	mw = multipart.NewWriter(&body)
	mw.WriteField("_action", "increment")
	mw.WriteField("by", "3")
	mw.Close()
	r = httptest.NewRequest(http.MethodPost, "http://shop.test/", &body)
	r.Header.Set("Content-Type", mw.FormDataContentType())
	r.Header.Set("Sec-Fetch-Site", "same-origin")
	mrec = httptest.NewRecorder()
	h.ServeHTTP(mrec, r)
	if mrec.Code != http.StatusSeeOther || st.get() != 3 {
		t.Errorf("multipart within the limit: got %d, counter %d; want 303 and 3", mrec.Code, st.get())
	}
}

// TestFormSharesTheRateLimit: a person's forms and an agent's calls from
// the same caller spend one budget (docs/protocol.md decision 5); past it, a form
// gets 429 with Retry-After and nothing runs.
func TestFormSharesTheRateLimit(t *testing.T) {
	h, st := formSite(t, &affordances.SiteOptions{Limit: affordances.Limit{Calls: 2, Per: time.Hour, Burst: 2}})
	if res := do(t, h, post("/", `{"action":"increment"}`)); !res.delta.OK {
		t.Fatalf("call: %s", res.body)
	}
	if rec := postForm(h, "_action=increment"); rec.Code != http.StatusSeeOther {
		t.Fatalf("first form: got %d %s", rec.Code, rec.Body)
	}
	rec := postForm(h, "_action=increment")
	if rec.Code != http.StatusTooManyRequests || rec.Header().Get("Retry-After") == "" || !strings.Contains(rec.Body.String(), "code=rate_limited") {
		t.Errorf("second form: got %d Retry-After %q %s, want 429 with Retry-After", rec.Code, rec.Header().Get("Retry-After"), rec.Body)
	}
	if res := do(t, h, post("/", `{"action":"increment"}`)); res.status != http.StatusTooManyRequests {
		t.Errorf("call after the forms: got %d, want 429", res.status)
	}
	if got := st.get(); got != 2 {
		t.Errorf("counter: got %d, want 2", got)
	}
}

// TestFormConfirmFieldsRoundTrip: the confirmation page's hidden fields
// post the person's values again, with confirmation and a new key.
func TestFormConfirmFieldsRoundTrip(t *testing.T) {
	f := &affordances.Form{Action: "reset", Values: url.Values{"_action": {"reset"}, "note": {`a "quoted" <b>`}, "_confirm": {"forged"}, "_key": {"old"}}}
	got := string(f.ConfirmFields())
	want := regexp.MustCompile(`^<input type="hidden" name="_action" value="reset"><input type="hidden" name="note" value="a &#34;quoted&#34; &lt;b&gt;">` +
		`<input type="hidden" name="_key" value="[A-Za-z0-9_-]{22}"><input type="hidden" name="_confirm" value="yes">$`)
	if !want.MatchString(got) {
		t.Errorf("got %s\nwant %s", got, want)
	}
	if again := string(f.ConfirmFields()); again == got {
		t.Error("two confirmation pages carry the same key")
	}
	var nilForm *affordances.Form
	if nilForm.ConfirmFields() != "" || nilForm.For("x") != nil {
		t.Error("a nil *Form answers something")
	}
	var nilPage *affordances.Page
	if f := nilPage.Action("x").Field("y"); f.Value != "" || f.Issue != "" || f.Attrs != `name="y"` {
		t.Errorf("a nil *Page's Field: %+v", f)
	}
}
