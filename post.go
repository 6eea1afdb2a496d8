package affordances

import (
	"bytes"
	"cmp"
	"compress/gzip"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"mime/multipart"
	"net/http"
	"net/url"
	"reflect"
	"slices"
	"strings"

	"golang.org/x/net/html"
)

// Post returns an action's function that the app's own POST handler carries
// out: the input is posted in process, as urlencoded form values (an array
// repeated, a nested field "a.b"), to path(r, in) (nil: the page's) through
// the handler [Site.Handler] wraps, with the requester's headers (a bearer
// call's without cookies); the app's CSRF check lets through what
// [ActionFrom] says the site made. A field is named as its JSON name and a
// true boolean sent as "on", unless a form tag says otherwise:
//
//	Starred bool `json:"starred" form:"star,1"` // a checkbox named star, value="1"
//
// The outcome is what the handler did, its Set-Cookie passed on in any case:
//   - a redirect (a 3xx, or htmx's HX-Redirect or HX-Location) is the
//     success, its target the delta's redirect; one to [PostOptions.SignIn]
//     is unauthorized; 202 Accepted is ok, saying it is not done yet;
//   - a 2xx HTML page is a refusal in the words of its role="alert" message
//     (invalid_input when it holds the posted form again, else unavailable),
//     or without one unavailable, naming the page's title;
//   - any other 2xx is the success; a 4xx or 5xx is the refusal, with its
//     status's code and its text/plain line or role="alert" text.
//
// [PostWith] reads an app that says it another way; one that tells the person
// elsewhere calls [Request.Refuse].
func Post[In any](path func(r *Request, in In) string) ActionFunc[In, struct{}] {
	return PostWith(path, nil)
}

// PostOptions says how [PostWith] sends the request and reads the answer
// of an app whose way differs from [Post]'s. The zero value is Post's.
type PostOptions struct {
	// SignIn is the app's sign-in path ("/login"): a redirect there is
	// unauthorized ([SiteOptions.SignInReason]). Empty: none is known.
	SignIn string
	// Done, if it reports true of the answer (its Body decoded), makes it a success.
	Done func(*http.Response) bool
	// Refused, if it returns a message, makes the answer a refusal in those
	// words, coded by its 4xx or 5xx status, else unavailable. It runs first.
	Refused func(*http.Response) string
	// Method is the request's method (empty: POST); the values are the body of
	// a POST, PUT or PATCH, and the query of any other.
	Method string
	// Multipart sends the values as a multipart/form-data body.
	Multipart bool
}

// PostWith is [Post] sending and reading as opts says (nil: as Post). It
// copies opts; its functions may be called concurrently.
func PostWith[In any](path func(r *Request, in In) string, opts *PostOptions) ActionFunc[In, struct{}] {
	if opts == nil {
		opts = &PostOptions{}
	}
	o := *opts
	return func(ctx context.Context, r *Request, in In) (struct{}, error) {
		to := r.HTTP.URL.Path
		if path != nil {
			to = path(r, in)
		}
		return struct{}{}, r.post(ctx, to, in, nil, &o)
	}
}

// PostJSON is [PostWith] for an endpoint that takes and answers JSON: a 2xx
// JSON answer, decoded into Out, is the output; a refusal's message is its
// "error", "message", "error_message", "error_description" or "detail"
// field. It panics when opts says Multipart.
func PostJSON[In, Out any](path func(r *Request, in In) string, opts *PostOptions) ActionFunc[In, Out] {
	if opts == nil {
		opts = &PostOptions{}
	}
	if opts.Multipart {
		panic("affordances: PostJSON sends JSON, not a multipart form")
	}
	o := *opts
	return func(ctx context.Context, r *Request, in In) (Out, error) {
		to := r.HTTP.URL.Path
		if path != nil {
			to = path(r, in)
		}
		var out Out
		if err := r.post(ctx, to, in, &out, &o); err != nil {
			var zero Out
			return zero, err
		}
		return out, nil
	}
}

// actionKey is the context key of [ActionFrom].
type actionKey struct{}

// ActionFrom returns the Request of the action whose [Post] made the request
// with ctx, or nil for any other request: an app's CSRF middleware lets such
// a request through (the site checked its origin), and its sign-in middleware
// may take a bearer call's requester from its Principal.
func ActionFrom(ctx context.Context) *Request {
	r, _ := ctx.Value(actionKey{}).(*Request)
	return r
}

// Refuse makes err the outcome of the action whose [Post] made the request
// (r is [ActionFrom]'s), whatever the handler answers, for an app that tells
// the person another way (a flash message): an [*Error] keeps its code, any
// other err is unavailable. Call it before the handler returns; the first call
// wins.
func (r *Request) Refuse(err error) {
	if r != nil && err != nil && r.refused == nil {
		r.refused = err
	}
}

// refusedBy returns the refusal the app's handler gave by [Request.Refuse],
// as the action's error; nil when it gave none.
func (r *Request) refusedBy() error {
	var e *Error
	switch {
	case r.refused == nil:
		return nil
	case errors.As(r.refused, &e):
		return e
	}
	return NewError(Unavailable, r.refused.Error())
}

// HXTrigger returns a [PostOptions.Refused] that reads an HX-Trigger header
// (or -After-Swap, -After-Settle) naming event as the refusal, in its detail
// when a string, its "message" when an object, else the event's name.
func HXTrigger(event string) func(*http.Response) string {
	return func(res *http.Response) string {
		for _, h := range []string{"HX-Trigger", "HX-Trigger-After-Swap", "HX-Trigger-After-Settle"} {
			v := strings.TrimSpace(res.Header.Get(h))
			if !strings.HasPrefix(v, "{") { // a list of event names
				for name := range strings.SplitSeq(v, ",") {
					if strings.TrimSpace(name) == event {
						return event
					}
				}
				continue
			}
			var events map[string]json.RawMessage
			if json.Unmarshal([]byte(v), &events) != nil {
				continue
			}
			detail, ok := events[event]
			if !ok {
				continue
			}
			var msg string
			var fields struct{ Message string }
			if json.Unmarshal(detail, &msg) != nil && json.Unmarshal(detail, &fields) == nil {
				msg = fields.Message
			}
			return cmp.Or(strings.Join(strings.Fields(msg), " "), event)
		}
		return ""
	}
}

// post runs the action by a request of in, as form values or JSON when
// out is not nil, to the app's path through the app's handler, and reads
// its answer, a 2xx JSON one into out.
func (r *Request) post(ctx context.Context, path string, in, out any, opts *PostOptions) error {
	s := r.route.site
	if r.next == nil || !strings.HasPrefix(path, "/") {
		return fmt.Errorf("affordances: Post to %q: a path of the app, in a call the site serves", path)
	}
	var values url.Values
	var err error
	if out == nil {
		values, err = formValues(in)
	}
	if err != nil {
		return fmt.Errorf("affordances: Post to %s: %w", path, err)
	}
	method := cmp.Or(opts.Method, http.MethodPost)
	var body bytes.Buffer
	contentType, accept := "application/x-www-form-urlencoded", "text/html"
	switch {
	case out != nil:
		b, err := json.Marshal(in)
		if err != nil {
			return fmt.Errorf("affordances: Post to %s: %w", path, err)
		}
		body.Write(b)
		contentType, accept = "application/json", "application/json"
	case opts.Multipart:
		mw := multipart.NewWriter(&body)
		for _, k := range slices.Sorted(maps.Keys(values)) {
			for _, v := range values[k] {
				mw.WriteField(k, v)
			}
		}
		mw.Close()
		contentType = mw.FormDataContentType()
	case method == http.MethodPost || method == http.MethodPut || method == http.MethodPatch:
		body.WriteString(values.Encode())
	default: // as Go's ParseForm reads a form sent with any other method
		contentType = ""
		if len(values) > 0 {
			sep := "?"
			if strings.Contains(path, "?") {
				sep = "&"
			}
			path += sep + values.Encode()
		}
	}
	hr, err := http.NewRequestWithContext(context.WithValue(ctx, actionKey{}, r), method, path, &body)
	if err != nil {
		return fmt.Errorf("affordances: Post to %s: %w", path, err)
	}
	bearer := kindOf(r.HTTP) == bearerCall
	for k, vs := range r.HTTP.Header {
		switch {
		case k == "Cookie" && bearer: // never a session for a bearer call (docs/protocol.md decision 4)
		case k == "Content-Type", k == "Content-Length", k == "Accept", k == "Accept-Encoding", k == "Idempotency-Key", k == "Origin", k == "Sec-Fetch-Site":
		default:
			hr.Header[k] = vs
		}
	}
	if contentType != "" {
		hr.Header.Set("Content-Type", contentType)
	}
	hr.Header.Set("Accept", accept)
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
	return r.read(hr, values, w, out, opts)
}

// read makes the outcome of a [Post] what the app's handler answered
// (w) to hr, the post of values, read as [Post] says; a 2xx JSON answer
// is decoded into out, when it is not nil.
func (r *Request) read(hr *http.Request, values url.Values, w *recorder, out any, opts *PostOptions) error {
	s := r.route.site
	body := w.decoded()
	if out != nil && w.status < 300 && isJSON(w.header.Get("Content-Type")) && len(bytes.TrimSpace(body)) > 0 {
		if err := json.Unmarshal(body, out); err != nil {
			return fmt.Errorf("affordances: Post to %s: the app's answer: %w", hr.URL.Path, err)
		}
	}
	if err := r.refusedBy(); err != nil {
		return err
	}
	res := func() *http.Response { // what Refused and Done read, the body anew for each
		return &http.Response{
			Status: fmt.Sprintf("%d %s", w.status, http.StatusText(w.status)), StatusCode: w.status,
			Proto: "HTTP/1.1", ProtoMajor: 1, ProtoMinor: 1,
			Header: w.header, Body: io.NopCloser(bytes.NewReader(body)), ContentLength: int64(len(body)), Request: hr,
		}
	}
	if opts.Refused != nil {
		if msg := opts.Refused(res()); msg != "" {
			if w.status < 400 {
				return NewError(Unavailable, msg)
			}
			return refused(w.status, msg)
		}
	}
	to, redirected := redirectOf(w)
	if opts.Done != nil && opts.Done(res()) {
		r.redirectTo(hr, to)
		return nil
	}
	switch {
	case redirected:
		if u, err := url.Parse(to); err == nil && opts.SignIn != "" && sameHost(u, hr) {
			if p, ok := s.own(u.Path); ok && p == opts.SignIn {
				return s.signIn() // the app sent the person to sign in: nothing was done
			}
		}
		r.redirectTo(hr, to)
		return nil
	case w.status == http.StatusAccepted:
		r.SetMessage(s.say(r.HTTP, r.Principal, phrase("The app accepted it, to do later: it is not done yet.")))
		return nil
	case w.status < 300:
		if !strings.HasPrefix(w.header.Get("Content-Type"), "text/html") || len(bytes.TrimSpace(body)) == 0 {
			return nil // no page: done, as a 204 says
		}
		doc, err := html.Parse(bytes.NewReader(body))
		if err != nil {
			return fmt.Errorf("affordances: Post to %s: the app's page: %w", hr.URL.Path, err)
		}
		if msg := alertText(doc); msg != "" { // the form rendered again, with why
			if formAgain(doc, values) {
				return NewError(InvalidInput, msg)
			}
			return NewError(Unavailable, msg)
		}
		return libError(Unavailable, phrase("The app answered with a page that asks the person something (“%s”), and did not say it was done.", titleOf(doc)))
	case w.status < 400:
		return nil // a 3xx without Location: nowhere to go
	}
	msg := refusal(w.header.Get("Content-Type"), body)
	if msg == "" { // the library's words, in the person's language
		return libError(codeOfStatus(w.status), phrase("The site refused it: %d %s.", w.status, http.StatusText(w.status)))
	}
	return refused(w.status, msg)
}

// refused is the app's refusal with status (a 4xx or 5xx), in its words
// msg: forbidden for a 403, else its status's code.
func refused(status int, msg string) *Error {
	if status == http.StatusForbidden {
		return Forbidden(msg)
	}
	return NewError(codeOfStatus(status), msg)
}

// redirectOf returns where the app's answer sends the person: a 3xx's
// Location, or htmx's HX-Redirect or HX-Location (a path, or JSON with
// one) on a 2xx; false when it sends them nowhere.
func redirectOf(w *recorder) (string, bool) {
	if w.status >= 300 && w.status < 400 {
		to := w.header.Get("Location")
		return to, to != ""
	}
	if w.status < 200 || w.status >= 300 {
		return "", false
	}
	if to := w.header.Get("HX-Redirect"); to != "" {
		return to, true
	}
	to := w.header.Get("HX-Location")
	if strings.HasPrefix(to, "{") {
		var l struct {
			Path string `json:"path"`
		}
		json.Unmarshal([]byte(to), &l)
		to = l.Path
	}
	return to, to != ""
}

// redirectTo makes to, where the app sent the person, the delta's
// redirect when it is a page of the site.
func (r *Request) redirectTo(hr *http.Request, to string) {
	u, err := url.Parse(to)
	if to == "" || err != nil || !sameHost(u, hr) {
		return
	}
	if p, ok := r.route.site.own(u.Path); ok {
		if u.RawQuery != "" {
			p += "?" + u.RawQuery
		}
		r.SetRedirect(p)
	}
}

// sameHost reports whether u, a Location, is on hr's host.
func sameHost(u *url.URL, hr *http.Request) bool { return u.Host == "" || u.Host == hr.Host }

// formAgain reports whether doc holds a field of a form named as one of
// values: the form posted, rendered again.
func formAgain(doc *html.Node, values url.Values) bool {
	for n := range doc.Descendants() {
		if n.Type != html.ElementNode || (n.Data != "input" && n.Data != "textarea" && n.Data != "select") {
			continue
		}
		for _, a := range n.Attr {
			if a.Key == "name" && values.Has(a.Val) {
				return true
			}
		}
	}
	return false
}

// titleOf returns the text of doc's title, else of its first h1.
func titleOf(doc *html.Node) string {
	var h1 string
	for n := range doc.Descendants() {
		if n.Type == html.ElementNode && (n.Data == "title" || (n.Data == "h1" && h1 == "")) {
			if t := strings.Join(strings.Fields(textOf(n)), " "); n.Data == "title" && t != "" {
				return t
			} else if n.Data == "h1" {
				h1 = t
			}
		}
	}
	return h1
}

// textOf returns the text inside n.
func textOf(n *html.Node) string {
	var b strings.Builder
	for t := range n.Descendants() {
		if t.Type == html.TextNode {
			b.WriteString(t.Data)
		}
	}
	return b.String()
}

// formValues writes in, JSON as the action's input is, as a form's values;
// a field's form tag gives its name in the form and, for a boolean, the
// value of its checked box.
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
	var walk func(prefix string, v any, t reflect.Type, checked string)
	walk = func(prefix string, v any, t reflect.Type, checked string) {
		for t != nil && t.Kind() == reflect.Pointer {
			t = t.Elem()
		}
		switch v := v.(type) {
		case map[string]any:
			var fields map[string]formField
			if t != nil && t.Kind() == reflect.Struct {
				fields = formFields(t)
			}
			for _, k := range slices.Sorted(maps.Keys(v)) {
				f, ok := fields[k]
				switch {
				case !ok && t != nil && t.Kind() == reflect.Map:
					f.typ = t.Elem()
				case f.name == "":
					f.name = k
				}
				name := f.name
				if prefix != "" {
					name = prefix + "." + f.name
				}
				walk(name, v[k], f.typ, f.checked)
			}
		case []any:
			var elem reflect.Type
			if t != nil && (t.Kind() == reflect.Slice || t.Kind() == reflect.Array) {
				elem = t.Elem()
			}
			for _, e := range v {
				walk(prefix, e, elem, checked)
			}
		case string:
			values.Add(prefix, v)
		case json.Number:
			values.Add(prefix, v.String())
		case bool:
			if v { // as a browser sends a checkbox: its value when checked, nothing when not
				values.Add(prefix, cmp.Or(checked, "on"))
			}
		}
	}
	walk("", v, reflect.TypeOf(in), "")
	return values, nil
}

// A formField is how a struct field is written in the app's form, as its
// tag form:"name,checked" says: its name (empty: its JSON name), the value
// of its box when it is a checked boolean (empty: "on"), and its type.
type formField struct {
	name, checked string
	typ           reflect.Type
}

// formFields returns t's fields by their JSON name, those of an embedded
// struct as its own.
func formFields(t reflect.Type) map[string]formField {
	fields := map[string]formField{}
	for _, sf := range reflect.VisibleFields(t) {
		if !sf.IsExported() || len(sf.Index) > 1 && !embeddedJSON(t, sf) {
			continue
		}
		key, _, _ := strings.Cut(sf.Tag.Get("json"), ",")
		if key == "-" || sf.Anonymous && key == "" && sf.Type.Kind() == reflect.Struct {
			continue
		}
		if key == "" {
			key = sf.Name
		}
		name, checked, _ := strings.Cut(sf.Tag.Get("form"), ",")
		if _, ok := fields[key]; !ok {
			fields[key] = formField{name: name, checked: checked, typ: sf.Type}
		}
	}
	return fields
}

// embeddedJSON reports whether sf, a field of a struct embedded in t, is
// one encoding/json writes as t's own: every struct on its way is
// embedded without a JSON name.
func embeddedJSON(t reflect.Type, sf reflect.StructField) bool {
	for _, i := range sf.Index[:len(sf.Index)-1] {
		for t.Kind() == reflect.Pointer {
			t = t.Elem()
		}
		f := t.Field(i)
		if name, _, _ := strings.Cut(f.Tag.Get("json"), ","); !f.Anonymous || name != "" {
			return false
		}
		t = f.Type
	}
	return true
}

// codeOfStatus is the code of docs/protocol.md decision 2 whose status an app's
// refusal has.
func codeOfStatus(status int) Code {
	switch status {
	case http.StatusBadRequest, http.StatusUnprocessableEntity, http.StatusRequestEntityTooLarge:
		return InvalidInput
	case http.StatusUnauthorized:
		return Unauthorized
	case http.StatusNotFound, http.StatusGone:
		return NotFound
	case http.StatusConflict, http.StatusPreconditionFailed:
		return Unavailable
	case http.StatusTooManyRequests:
		return RateLimited
	}
	return Internal
}

// refusal is the message of an app's refusal: the first line of a
// text/plain answer, the text of the first element with role="alert" of
// an HTML one, or a JSON one's "error" (or its "message"), "message",
// "error_message", "error_description" or "detail" (RFC 9457) field; ""
// when it has none.
func refusal(contentType string, body []byte) string {
	var msg string
	switch {
	case isJSON(contentType):
		var v struct {
			Error, Message, Detail any
			ErrorMessage           any `json:"error_message"`
			ErrorDescription       any `json:"error_description"`
		}
		json.Unmarshal(body, &v)
		if e, ok := v.Error.(map[string]any); ok {
			v.Error = e["message"]
		} else if _, ok := v.Error.(string); ok && (v.ErrorDescription != nil || v.Detail != nil) {
			v.Error = nil // an OAuth-style code ("invalid_request"): the description says it
		}
		for _, m := range []any{v.Error, v.Message, v.ErrorMessage, v.ErrorDescription, v.Detail} {
			if m, ok := m.(string); ok && m != "" {
				msg = m
				break
			}
		}
	case strings.HasPrefix(contentType, "text/plain"):
		msg, _, _ = strings.Cut(string(body), "\n")
	case strings.HasPrefix(contentType, "text/html"):
		if doc, err := html.Parse(bytes.NewReader(body)); err == nil {
			msg = alertText(doc)
		}
	}
	if msg = strings.Join(strings.Fields(msg), " "); len(msg) > 500 {
		return ""
	}
	return msg
}

// isJSON reports whether contentType is JSON: application/json or a
// type with the +json suffix.
func isJSON(contentType string) bool {
	t, _, _ := strings.Cut(contentType, ";")
	t = strings.ToLower(strings.TrimSpace(t))
	return t == "application/json" || strings.HasSuffix(t, "+json")
}

// alertText returns the text of doc's first element with role="alert".
func alertText(doc *html.Node) string {
	for n := range doc.Descendants() {
		if n.Type != html.ElementNode {
			continue
		}
		for _, a := range n.Attr {
			if a.Key == "role" && a.Val == "alert" {
				return strings.Join(strings.Fields(textOf(n)), " ")
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
