package affordances

import (
	"bytes"
	"compress/gzip"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"sort"
	"strings"

	"golang.org/x/net/html"
)

// Post returns an action's function that the app's own POST handler
// carries out, so an action an app has is declared, not written again:
// the input, as form values (a boolean "on" or nothing, an array repeated,
// a nested field "a.b"), is posted in process to path(r, in) (nil: the
// page's) through the handler [Site.Handler] wraps, with the requester's
// headers (a bearer call's without cookies), asking for an answer not
// compressed (one gzipped anyway is read all the same). A 2xx or 3xx is the success,
// its redirect and Set-Cookie the delta's; any other the refusal, with its
// status's code and its text/plain line or role="alert" text. The app's
// CSRF check lets through what [ActionFrom] says the site made.
func Post[In any](path func(r *Request, in In) string) func(ctx context.Context, r *Request, in In) (struct{}, error) {
	return func(ctx context.Context, r *Request, in In) (struct{}, error) {
		to := r.HTTP.URL.Path
		if path != nil {
			to = path(r, in)
		}
		return struct{}{}, r.post(ctx, to, in)
	}
}

// actionKey is the context key of [ActionFrom].
type actionKey struct{}

// ActionFrom returns the Request of the action whose [Post] made the
// request with ctx, or nil for any other request: an app's CSRF
// middleware lets such a request through (the site checked its origin),
// and its sign-in middleware may take the requester from its Principal
// when the call was an agent's, with a bearer token.
func ActionFrom(ctx context.Context) *Request {
	r, _ := ctx.Value(actionKey{}).(*Request)
	return r
}

// post runs the action by a POST of in's form values to the app's path
// through the app's handler, and reads its answer.
func (r *Request) post(ctx context.Context, path string, in any) error {
	s := r.route.site
	if r.next == nil || !strings.HasPrefix(path, "/") {
		return fmt.Errorf("affordances: Post to %q: a path of the app, in a call the site serves", path)
	}
	values, err := formValues(in)
	if err != nil {
		return fmt.Errorf("affordances: Post to %s: %w", path, err)
	}
	body := values.Encode()
	hr, err := http.NewRequestWithContext(context.WithValue(ctx, actionKey{}, r), http.MethodPost, path, strings.NewReader(body))
	if err != nil {
		return fmt.Errorf("affordances: Post to %s: %w", path, err)
	}
	bearer := kindOf(r.HTTP) == bearerCall
	for k, vs := range r.HTTP.Header {
		switch {
		case k == "Cookie" && bearer: // never a session for a bearer call (CLARIFICATIONS 4)
		case k == "Content-Type", k == "Content-Length", k == "Accept", k == "Accept-Encoding", k == "Idempotency-Key", k == "Origin", k == "Sec-Fetch-Site":
		default:
			hr.Header[k] = vs
		}
	}
	hr.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	hr.Header.Set("Accept", "text/html")
	hr.Header.Set("Accept-Encoding", "identity") // the refusal's words are read here, not by the caller
	hr.Header.Set("Origin", s.origin(r.HTTP))
	hr.Header.Set("Sec-Fetch-Site", "same-origin")
	hr.Host, hr.RemoteAddr, hr.TLS = r.HTTP.Host, r.HTTP.RemoteAddr, r.HTTP.TLS
	hr.RequestURI = s.full(path)
	w := &recorder{header: http.Header{}}
	r.next.ServeHTTP(w, hr)
	if w.status == 0 {
		w.status = http.StatusOK
	}
	for _, c := range w.header.Values("Set-Cookie") {
		r.Header().Add("Set-Cookie", c)
	}
	switch {
	case w.status < 300:
		return nil
	case w.status < 400:
		if u, err := url.Parse(w.header.Get("Location")); err == nil && (u.Host == "" || u.Host == hr.Host) {
			if to, ok := s.own(u.Path); ok {
				if u.RawQuery != "" {
					to += "?" + u.RawQuery
				}
				r.SetRedirect(to)
			}
		}
		return nil
	}
	msg := refusal(w.header.Get("Content-Type"), w.decoded())
	switch {
	case msg == "": // the library's words, in the person's language
		return libError(codeOfStatus(w.status), phrase("The site refused it: %d %s.", w.status, http.StatusText(w.status)))
	case w.status == http.StatusForbidden:
		return Forbidden(msg)
	}
	return NewError(codeOfStatus(w.status), msg) // the app's words
}

// formValues writes in, JSON as the action's input is, as a form's values.
func formValues(in any) (url.Values, error) {
	b, err := json.Marshal(in)
	if err != nil {
		return nil, err
	}
	var v any
	d := json.NewDecoder(bytes.NewReader(b))
	d.UseNumber()
	if err := d.Decode(&v); err != nil {
		return nil, err
	}
	values := url.Values{}
	var walk func(prefix string, v any)
	walk = func(prefix string, v any) {
		switch v := v.(type) {
		case map[string]any:
			keys := make([]string, 0, len(v))
			for k := range v {
				keys = append(keys, k)
			}
			sort.Strings(keys)
			for _, k := range keys {
				name := k
				if prefix != "" {
					name = prefix + "." + k
				}
				walk(name, v[k])
			}
		case []any:
			for _, e := range v {
				walk(prefix, e)
			}
		case string:
			values.Add(prefix, v)
		case json.Number:
			values.Add(prefix, v.String())
		case bool:
			if v { // as a browser sends a checkbox: "on" when checked, nothing when not
				values.Add(prefix, "on")
			}
		}
	}
	walk("", v)
	return values, nil
}

// codeOfStatus is the code of CLARIFICATIONS 2 whose status an app's
// refusal has.
func codeOfStatus(status int) Code {
	switch status {
	case http.StatusBadRequest, http.StatusUnprocessableEntity, http.StatusRequestEntityTooLarge:
		return InvalidInput
	case http.StatusUnauthorized:
		return Unauthorized
	case http.StatusNotFound, http.StatusGone:
		return NotFound
	case http.StatusConflict:
		return Unavailable
	case http.StatusTooManyRequests:
		return RateLimited
	}
	return Internal
}

// refusal is the message of an app's refusal: the first line of a
// text/plain answer, or the text of the first element with role="alert"
// of an HTML one; "" when it has none.
func refusal(contentType string, body []byte) string {
	var msg string
	switch {
	case strings.HasPrefix(contentType, "text/plain"):
		msg, _, _ = strings.Cut(string(body), "\n")
	case strings.HasPrefix(contentType, "text/html"):
		msg = alertText(body)
	}
	if msg = strings.Join(strings.Fields(msg), " "); len(msg) > 500 {
		return ""
	}
	return msg
}

// alertText returns the text of the first element with role="alert".
func alertText(body []byte) string {
	doc, err := html.Parse(bytes.NewReader(body))
	if err != nil {
		return ""
	}
	for n := range doc.Descendants() {
		if n.Type != html.ElementNode {
			continue
		}
		for _, a := range n.Attr {
			if a.Key == "role" && a.Val == "alert" {
				var b strings.Builder
				for t := range n.Descendants() {
					if t.Type == html.TextNode {
						b.WriteString(t.Data)
					}
				}
				return b.String()
			}
		}
	}
	return ""
}

// A recorder keeps what an app's handler answers to [Post]'s request.
type recorder struct {
	header http.Header
	status int
	body   bytes.Buffer
}

func (w *recorder) Header() http.Header { return w.header }

// decoded returns the body, ungzipped when the app compressed it anyway;
// nil when it cannot be read.
func (w *recorder) decoded() []byte {
	switch strings.ToLower(w.header.Get("Content-Encoding")) {
	case "", "identity":
		return w.body.Bytes()
	case "gzip", "x-gzip":
		z, err := gzip.NewReader(bytes.NewReader(w.body.Bytes()))
		if err != nil {
			return nil
		}
		b, _ := io.ReadAll(io.LimitReader(z, 1<<20))
		return b
	}
	return nil
}

func (w *recorder) WriteHeader(code int) {
	if w.status == 0 {
		w.status = code
	}
}

func (w *recorder) Write(b []byte) (int, error) {
	if w.status == 0 {
		w.status = http.StatusOK
	}
	if w.body.Len() < 1<<20 { // enough for the refusal's text
		w.body.Write(b)
	}
	return len(b), nil
}
