package affordances

import (
	"bytes"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"errors"
	"html/template"
	"io"
	"maps"
	"mime"
	"mime/multipart"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/affordances/affordances-go/internal/jsonptr"
	"github.com/affordances/affordances-go/internal/mediatype"
	"github.com/affordances/affordances-go/internal/weborigin"
)

// The fields a form binds to an action with.
const (
	// FormActionField names the action a form posted to a route's page runs.
	FormActionField = "_action"
	// FormConfirmField is the person's confirmation of a confirm action.
	FormConfirmField = "_confirm"
)

// formKeyField is a form's Idempotency-Key (docs/protocol.md decision 10): the
// confirmation page's form carries a new one, so that a second click on its
// button gets the first click's answer instead of running the action again.
const formKeyField = "_key"

// flashCookie carries a form's success message to the page it redirects to.
const flashCookie = "affordances-flash"

// A Form is what became of a person's form post, for the page that shows it
// ([Page.Form]). Its methods are safe on a nil *Form.
type Form struct {
	Action  string     // the action the form ran
	Values  url.Values // the fields the person sent, after a failure
	Message string     // a success's message, on the page it redirected to
	// Error is why the form failed; for invalid_input, each issue is at the
	// JSON Pointer of its field ([PageAction.Field]).
	Error *Error
	// Confirm is a confirm action's summary, before anything ran, shown with a
	// button that posts [Form.ConfirmFields].
	Confirm string

	consent string // the digest of the state Confirm describes ([Action.Consent])
}

// For returns f when it is the outcome of the form of action, else nil.
func (f *Form) For(action string) *Form {
	if f == nil || f.Action != action {
		return nil
	}
	return f
}

// value returns the value the person sent for the field name, "" when none.
func (f *Form) value(name string) string {
	if f == nil {
		return ""
	}
	return f.Values.Get(name)
}

// issue returns the message of the first issue of the field name (a
// property of the input, "address.city" for a nested one), "" when it has
// none.
func (f *Form) issue(name string) string {
	if f == nil || f.Error == nil {
		return ""
	}
	for _, ptr := range []string{jsonptr.Append("", name), fieldPointer(name)} {
		for _, is := range f.Error.Issues {
			if is.Path == ptr || strings.HasPrefix(is.Path, ptr+"/") {
				return is.Message
			}
		}
	}
	return ""
}

// ConfirmFields returns the hidden inputs of a confirmation page's button:
// the form's values, the person's confirmation and [FormConsentField].
func (f *Form) ConfirmFields() template.HTML {
	if f == nil {
		return ""
	}
	var b strings.Builder
	for _, name := range slices.Sorted(func(yield func(string) bool) {
		for k := range f.Values {
			if k != FormConfirmField && k != formKeyField && k != FormConsentField && !yield(k) {
				return
			}
		}
	}) {
		for _, v := range f.Values[name] {
			b.WriteString(hiddenInput(name, v))
		}
	}
	key := make([]byte, 16)
	rand.Read(key) // never fails (crypto/rand)
	b.WriteString(hiddenInput(formKeyField, base64.RawURLEncoding.EncodeToString(key)))
	if f.consent != "" {
		b.WriteString(hiddenInput(FormConsentField, f.consent))
	}
	b.WriteString(hiddenInput(FormConfirmField, "yes"))
	return template.HTML(b.String())
}

func hiddenInput(name, value string) string {
	return `<input type="hidden" name="` + template.HTMLEscapeString(name) + `" value="` + template.HTMLEscapeString(value) + `">`
}

// fieldPointer is the JSON Pointer of a form field: "due" is /due,
// "address.city" is /address/city.
func fieldPointer(name string) string {
	var b strings.Builder
	for part := range strings.SplitSeq(name, ".") {
		b.WriteByte('/')
		b.WriteString(jsonptr.Escape(part))
	}
	return b.String()
}

// isForm reports whether a POST's body is an HTML form.
func isForm(r *http.Request) bool {
	ct := r.Header.Get("Content-Type")
	return mediatype.Is(ct, "application/x-www-form-urlencoded") || mediatype.Is(ct, "multipart/form-data")
}

// serveForm runs a form posted to a route's page with [FormActionField]
// naming one of its actions through the seven steps of a call (step 2 is
// the browser's origin rule): a success answers 303 to the delta's redirect
// or the page, a failure renders the page again ([Page.Form]). The body is
// bounded before it is parsed (413 past [SiteOptions.MaxBodyBytes]); a form
// that names no action of the route goes to next with its body untouched.
func (s *Site) serveForm(w http.ResponseWriter, r *http.Request, next http.Handler, rt *Route, params []param) {
	page := &Page{site: s, route: rt, params: params}
	limit := s.opts.MaxBodyBytes
	body, err := io.ReadAll(io.LimitReader(r.Body, limit+1))
	if err != nil {
		e := libError(InvalidInput, phrase("The form could not be read."))
		s.renderForm(w, r, next, page, &Form{Error: e}, s.failure(e, "form"), nil)
		return
	}
	multi := mediatype.Is(r.Header.Get("Content-Type"), "multipart/form-data")
	name := formAction(r, body, multi, int64(len(body)) > limit)
	a := rt.byName[name]
	if a == nil || a.Expose == "" {
		// Not the binding's: the app's own form, its body as it was sent.
		r.Body = struct {
			io.Reader
			io.Closer
		}{io.MultiReader(bytes.NewReader(body), r.Body), r.Body}
		page.http = r
		s.servePage(w, next, page)
		return
	}
	if int64(len(body)) > limit {
		e := tooLarge(phrase("The form is larger than %s, so nothing was sent. Send less at a time.", byteSize(limit)))
		s.renderForm(w, r, next, page, &Form{Action: name, Error: e}, s.failure(e, "form"), nil)
		return
	}
	// Within the limit, parsed from memory: no part reaches a temporary
	// file.
	r.Body = io.NopCloser(bytes.NewReader(body))
	if multi {
		err = r.ParseMultipartForm(limit)
	} else {
		err = r.ParseForm()
	}
	if err == nil && (len(r.PostForm[FormActionField]) != 1 || len(r.PostForm[FormConfirmField]) > 1 || len(r.PostForm[formKeyField]) > 1 || len(r.PostForm[FormConsentField]) > 1) {
		err = errors.New("a field of the binding sent twice")
	}
	if err != nil {
		e := libError(InvalidInput, phrase("The form could not be read."))
		s.renderForm(w, r, next, page, &Form{Action: name, Error: e}, s.failure(e, "form"), nil)
		return
	}
	c := &call{
		route: rt, params: params, action: a, confirm: r.PostForm.Get(FormConfirmField) == "yes",
		form: true, values: r.PostForm, consent: r.PostForm.Get(FormConsentField), next: next,
	}
	if key := r.PostForm.Get(formKeyField); key != "" { // claim ignores one that is no key
		values := maps.Clone(r.PostForm)
		delete(values, formKeyField)
		c.key, c.body = key, []byte(values.Encode()) // sorted by name: one body for one form
	}
	res, req := s.answer(r.Context(), r, c)
	d := res.delta
	if d == nil { // a replay: the first click's answer
		d = &Delta{}
		if err := json.Unmarshal(res.body, d); err != nil || (!d.OK && d.Error == nil) {
			d = &Delta{Error: internalError}
		}
	}
	switch {
	case d.OK:
		addHeader(w.Header(), res.header)
		to := d.Redirect
		if !localPath(to) {
			to = s.full(r.URL.RequestURI())
		}
		if u, _ := url.Parse(to); d.Message != "" && u != nil {
			if path, ok := s.own(u.EscapedPath()); ok && s.hasRoute(path) {
				// Only a page of a route shows it (a download would leave
				// it for a later page).
				s.setFlash(w, r, name, d.Message)
			}
		}
		http.Redirect(w, r, to, http.StatusSeeOther)
	case d.Error.Code == ConfirmRequired:
		res.status = http.StatusOK
		s.renderForm(w, r, next, page, &Form{Action: name, Values: r.PostForm, Confirm: s.localize(r, req.who(), d.Error).Message, consent: res.consent}, res, req)
	default:
		e := d.Error
		if e.schema {
			e2 := *e
			e2.words, e2.Message = checkFields, checkFields.format // English; renderForm says it in the person's language
			e = &e2
		}
		s.renderForm(w, r, next, page, &Form{Action: name, Values: r.PostForm, Error: e}, res, req)
	}
}

// checkFields is the error of a form whose fields its input's schema
// refused, above the form: each field says what is wrong with it.
var checkFields = phrase("Check the fields marked below and send the form again.")

// byteSize says n bytes for a person: "1 MiB", "512 KiB", "900 bytes".
func byteSize(n int64) text {
	switch {
	case n >= 1<<20 && n%(1<<20) == 0:
		return phrase("%d MiB", n>>20)
	case n >= 1<<10 && n%(1<<10) == 0:
		return phrase("%d KiB", n>>10)
	}
	return phrase("%d bytes", n)
}

// formAction returns the value of the form's [FormActionField], read from
// body, the form's body or, when cut, its start (whose last field may be
// cut short and is not read); "" when it has none.
func formAction(r *http.Request, body []byte, multi, cut bool) string {
	if !multi {
		q := string(body)
		if cut {
			q = q[:max(strings.LastIndexByte(q, '&'), 0)]
		}
		v, err := url.ParseQuery(q)
		if err != nil && len(v) == 0 {
			return ""
		}
		return v.Get(FormActionField)
	}
	_, params, err := mime.ParseMediaType(r.Header.Get("Content-Type"))
	if err != nil || params["boundary"] == "" {
		return ""
	}
	mr := multipart.NewReader(bytes.NewReader(body), params["boundary"])
	for {
		p, err := mr.NextPart()
		if err != nil {
			return ""
		}
		if p.FormName() == FormActionField && p.FileName() == "" {
			v, err := io.ReadAll(io.LimitReader(p, 256))
			if err != nil {
				return ""
			}
			return string(v)
		}
	}
}

// errFormOrigin is the refusal of a form posted from another site.
var errFormOrigin = forbidden(phrase("This form was posted from another site, so it was refused. Nothing changed."))

// checkFormOrigin is step 2's origin rule for forms (docs/protocol.md decision 13):
// the browser's, as [http.CrossOriginProtection] applies it
// (Sec-Fetch-Site, else Origin against the Host), with the site's
// configured origin trusted. Beyond it: a request with neither header is
// refused; with [SiteOptions.Origin] set, the Host must be that origin's,
// so a page served under another name (DNS rebinding) cannot post; an
// Origin that is present and not null must be the site's whole origin
// (scheme, host and port); and Origin: null, which browsers send for a
// same-origin form under Referrer-Policy: no-referrer, passes only with
// Sec-Fetch-Site: same-origin.
func (s *Site) checkFormOrigin(r *http.Request) error {
	origins, fetchSite := r.Header.Values("Origin"), r.Header.Get("Sec-Fetch-Site")
	switch {
	case len(origins) > 1, len(origins) == 0 && fetchSite == "", s.formOrigin.Check(r) != nil:
		return errFormOrigin
	case s.opts.Origin != "" && s.hostOrigin(r) != s.opts.Origin:
		return errFormOrigin
	case len(origins) == 0:
		return nil
	case origins[0] == "null":
		if fetchSite != "same-origin" {
			return errFormOrigin
		}
		return nil
	}
	if o, err := weborigin.Parse(origins[0]); err != nil || o != s.origin(r) {
		return errFormOrigin
	}
	return nil
}

// renderForm answers a form that did not succeed with its page pg,
// rendered by next as for a GET of the same URL, with form, its error in
// the person's language, and the status and headers of res. req is the
// call's Request, nil before step 2 found who asks: who the call found,
// and the page as it last loaded it, not authenticated or loaded again.
func (s *Site) renderForm(w http.ResponseWriter, r *http.Request, next http.Handler, pg *Page, form *Form, res *response, req *Request) {
	h := res.header
	if _, ok := h["Content-Language"]; ok { // a kept answer's: the page's language is the app's
		h = h.Clone()
		h.Del("Content-Language")
	}
	addHeader(w.Header(), h)
	form.Error = s.localize(r, req.who(), form.Error)
	pg.form = form
	if req != nil {
		pg.who.Do(func() { pg.p = req.Principal })
		if req.State != nil {
			pg.load.Do(func() { pg.req = req })
		}
	}
	page := new(http.Request)
	*page = *r
	page.Method, page.Body, page.ContentLength = http.MethodGet, http.NoBody, 0
	page.Form, page.PostForm, page.MultipartForm = nil, nil, nil
	page.Header = r.Header.Clone()
	page.Header.Del("Content-Type")
	page.Header.Del("Content-Length")
	pg.http, pg.status = page, res.status
	s.servePage(w, next, pg)
}

// statusWriter answers with status where the handler it wraps answers 200,
// with WWW-Authenticate on a 401 (docs/protocol.md decision 2).
type statusWriter struct {
	http.ResponseWriter
	site   *Site
	r      *http.Request
	status int
	wrote  bool
}

func (w *statusWriter) WriteHeader(code int) {
	if !w.wrote && code == http.StatusOK {
		code = w.status
	}
	if !w.wrote {
		w.site.challenge(w.Header(), w.r, code, nil)
	}
	w.wrote = true
	w.ResponseWriter.WriteHeader(code)
}

func (w *statusWriter) Write(b []byte) (int, error) {
	if !w.wrote {
		w.WriteHeader(http.StatusOK)
	}
	return w.ResponseWriter.Write(b)
}

// Unwrap lets [http.ResponseController] reach the underlying writer.
func (w *statusWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }

// localPath reports whether to is a path on this site: a form's redirect
// never sends the person elsewhere. Browsers drop tabs and newlines and
// read a backslash as a slash, so those refuse the path too.
func localPath(to string) bool {
	if !strings.HasPrefix(to, "/") || strings.HasPrefix(to, "//") ||
		strings.ContainsFunc(to, func(r rune) bool { return r < 0x20 || r == 0x7f || r == '\\' }) {
		return false
	}
	u, err := url.Parse(to)
	return err == nil && u.Scheme == "" && u.Host == ""
}

// maxFlash bounds the message a flash cookie carries, in bytes.
const maxFlash = 1024

// setFlash carries a form's success message to the next page, in a cookie
// that lives a minute, that scripts cannot read, and that the site signs:
// a cookie planted by another site (a sibling subdomain, a plain-HTTP
// answer) never reads as the site's own words.
func (s *Site) setFlash(w http.ResponseWriter, r *http.Request, action, message string) {
	for len(message) > maxFlash {
		_, size := utf8.DecodeLastRuneInString(message)
		message = message[:len(message)-size]
	}
	payload := base64.RawURLEncoding.EncodeToString([]byte(action + "\n" + message))
	http.SetCookie(w, s.flashCookie(r, payload+"."+s.sign(payload), 60))
}

// takeFlash returns the outcome the site's flash cookie carries, and clears
// it; nil when there is none, or its signature is not the site's.
func (s *Site) takeFlash(w http.ResponseWriter, r *http.Request) *Form {
	c, err := r.Cookie(s.flashCookie(r, "", 0).Name)
	if err != nil {
		return nil
	}
	http.SetCookie(w, s.flashCookie(r, "", -1))
	payload, sig, ok := strings.Cut(c.Value, ".")
	if !ok || !hmac.Equal([]byte(sig), []byte(s.sign(payload))) {
		return nil
	}
	b, err := base64.RawURLEncoding.DecodeString(payload)
	if err != nil {
		return nil
	}
	action, message, ok := strings.Cut(string(b), "\n")
	if !ok || !utf8.ValidString(message) {
		return nil
	}
	return &Form{Action: action, Message: message}
}

// flashCookie is the flash cookie with value, living maxAge seconds: Secure
// and __Host- named on a site served over https.
func (s *Site) flashCookie(r *http.Request, value string, maxAge int) *http.Cookie {
	c := &http.Cookie{Name: flashCookie, Value: value, Path: "/", MaxAge: maxAge, HttpOnly: true, SameSite: http.SameSiteLaxMode}
	if r.TLS != nil || strings.HasPrefix(s.opts.Origin, "https:") {
		c.Name, c.Secure = "__Host-"+flashCookie, true
	}
	return c
}

// sign returns the site's signature of payload.
func (s *Site) sign(payload string) string {
	m := hmac.New(sha256.New, s.secret)
	m.Write([]byte(payload))
	return base64.RawURLEncoding.EncodeToString(m.Sum(nil))
}
