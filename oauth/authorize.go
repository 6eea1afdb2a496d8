package oauth

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"html/template"
	"net/http"
	"net/url"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/ory/fosite"

	affordances "github.com/affordances/affordances-go"
	"github.com/affordances/affordances-go/aal"
	"github.com/affordances/affordances-go/internal/crosssite"
	"github.com/affordances/affordances-go/internal/weborigin"
	"github.com/affordances/affordances-go/store"
)

// crossOrigin refuses a decision posted from another site: the consent
// page's and the assistants page's forms post only from their own page.
var crossOrigin = http.NewCrossOriginProtection()

// sameSite refuses a post from another site, and one with neither of the
// headers a browser sends (Sec-Fetch-Site, Origin): a decision comes from
// the person's browser, on the site's own page.
func sameSite(r *http.Request) error {
	if r.Header.Get("Sec-Fetch-Site") == "" && r.Header.Get("Origin") == "" {
		return errNotBrowser
	}
	return crossOrigin.Check(r)
}

// errNotBrowser is a request to the person's pages that is not from a
// person's browser session.
var errNotBrowser = errors.New("oauth: not from the person's browser session")

// person returns who is at one of the server's pages, from their browser
// session alone: a request with an Authorization header, or a principal
// a bearer token or an assistant's grant makes, is [errNotBrowser], so
// that no token can grant itself more, or take back what was granted.
func (s *Server) person(r *http.Request) (affordances.Principal, error) {
	if r.Header.Get("Authorization") != "" {
		return affordances.Principal{}, errNotBrowser
	}
	p, err := s.opts.Authenticate(r)
	if err == nil && (p.Grant != nil || p.Method == affordances.AuthBearer) {
		return affordances.Principal{}, errNotBrowser
	}
	return p, err
}

// refuse answers a request the server refuses before the person decided
// anything. To a native app's redirect (loopback http, a private-use
// scheme) the refusal goes at once, as OAuth says; to a web address it is
// a page with a link the person follows, so that a client registered by
// anyone cannot use the site to send people anywhere (RFC 9700, section
// 4.11.2).
func (s *Server) refuse(w http.ResponseWriter, r *http.Request, ar fosite.AuthorizeRequester, err error) {
	var to *url.URL
	if ar != nil {
		to = ar.GetRedirectURI()
	}
	if to == nil || to.Host == "" || native(to) {
		s.provider.WriteAuthorizeError(r.Context(), issWriter{w, s.issuer}, ar, err)
		return
	}
	e := fosite.ErrorToRFC6749Error(err)
	q := to.Query()
	q.Set("error", e.ErrorField)
	q.Set("error_description", e.GetDescription())
	q.Set("iss", s.issuer)
	if st := ar.GetState(); st != "" {
		q.Set("state", st)
	}
	back := *to
	back.RawQuery = q.Encode()
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.Header().Set("Cache-Control", "no-store")
	w.Header().Set("Content-Security-Policy", "default-src 'none'; style-src 'unsafe-inline'; frame-ancestors 'none'")
	w.WriteHeader(e.CodeField)
	refusedTemplate.Execute(w, map[string]any{"said": s.langs.of(r, affordances.Principal{}), "Error": e.GetDescription(), "Back": back.String(), "Host": back.Host})
}

// native reports whether u is a native app's redirect (RFC 8252):
// http on a loopback address, or a private-use scheme.
func native(u *url.URL) bool {
	return u.Scheme == "http" && (u.Hostname() == "127.0.0.1" || u.Hostname() == "::1" || u.Hostname() == "localhost") ||
		u.Scheme != "http" && u.Scheme != "https"
}

var refusedTemplate = template.Must(template.New("refused").Parse(`<!doctype html>
<html lang="{{.said.Lang}}"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>{{.said.T "The assistant's request was refused"}}</title><style>` + style + `</style></head><body>
<main><h1>{{.said.T "The assistant's request was refused"}}</h1>
<p class="error">{{.Error}}</p>
<p><a href="{{.Back}}">{{.said.T "Back to %s" .Host}}</a></p>
</main></body></html>
`))

// serveAuthorize is the authorization endpoint. A GET from the assistant
// shows the person, signed in on the site, what the assistant asks; their
// Allow or Deny, posted from that page, answers the assistant with a code
// or a refusal, and the iss of RFC 9207 either way.
func (s *Server) serveAuthorize(w http.ResponseWriter, r *http.Request) {
	ctx := r.Context()
	iw := issWriter{w, s.issuer}
	ar, err := s.provider.NewAuthorizeRequest(ctx, r)
	if err == nil {
		err = s.checkResource(ar.GetRequestForm()["resource"])
	}
	if err == nil && (ar.GetRequestForm().Get("code_challenge") == "" || ar.GetRequestForm().Get("code_challenge_method") != "S256") {
		// fosite refuses it too, once the person has consented: refuse it
		// before they are asked.
		err = fosite.ErrInvalidRequest.WithHint("PKCE is required, with code_challenge_method=S256.")
	}
	if err != nil {
		s.refuse(w, r, ar, err)
		return
	}
	p, err := s.person(r)
	if errors.Is(err, errNotBrowser) {
		http.Error(w, "Forbidden: allow an assistant in your browser, signed in on the site; a token cannot.", http.StatusForbidden)
		return
	}
	if err != nil {
		s.logger.Error("oauth: authenticating the person at the consent page", "err", err)
		http.Error(w, "Something went wrong on the server. Try again later.", http.StatusInternalServerError)
		return
	}
	if p.Anonymous() {
		if crosssite.Arrived(r) {
			// The assistant's window sent the person here from another
			// site, so a SameSite=Strict session cookie stayed behind:
			// load the page again from this site, which sends it.
			crosssite.Reload(w, r)
			return
		}
		http.Redirect(w, r, s.opts.SignIn+"?next="+url.QueryEscape(r.URL.RequestURI()), http.StatusSeeOther)
		return
	}
	client, name, err := s.clients.named(ctx, ar.GetClient().GetID())
	if err != nil {
		s.refuse(w, r, ar, err)
		return
	}
	page := s.consentPage(ar, client.GetID(), name, p)
	page.said = s.langs.of(r, p)
	if r.Method != http.MethodPost {
		page.render(w, http.StatusOK)
		return
	}
	if err := sameSite(r); err != nil {
		page.Error = phrase("This form was posted from another site, so it was refused. Nothing was granted.")
		page.render(w, http.StatusForbidden)
		return
	}
	if r.PostFormValue("decision") != "allow" {
		s.provider.WriteAuthorizeError(ctx, iw, ar, fosite.ErrAccessDenied.WithHint("The person did not allow it."))
		return
	}
	g, problem := page.grant(r, ar.GetID(), client.GetID())
	if problem != "" {
		page.Error = problem
		page.render(w, http.StatusBadRequest)
		return
	}
	for _, t := range g.Trust {
		ar.GrantScope(t)
	}
	for _, a := range ar.GetRequestForm()["resource"] {
		ar.GrantAudience(a)
	}
	if len(ar.GetGrantedAudience()) == 0 {
		ar.GrantAudience(s.issuer)
	}
	res, err := s.provider.NewAuthorizeResponse(ctx, ar, &fosite.DefaultSession{Subject: p.ID})
	if err != nil {
		s.provider.WriteAuthorizeError(ctx, iw, ar, err)
		return
	}
	if err := s.st.CreateGrant(ctx, g); err != nil {
		s.logger.Error("oauth: keeping a grant", "err", err)
		s.provider.WriteAuthorizeError(ctx, iw, ar, fosite.ErrServerError)
		return
	}
	res.AddParameter("iss", s.issuer)
	s.provider.WriteAuthorizeResponse(ctx, w, ar, res)
}

// issWriter adds iss (RFC 9207) to the error redirects fosite writes.
type issWriter struct {
	http.ResponseWriter
	iss string
}

func (w issWriter) WriteHeader(code int) {
	if loc, err := url.Parse(w.Header().Get("Location")); err == nil && code >= 300 && code < 400 && loc.Host != "" {
		q := loc.Query()
		q.Set("iss", w.iss)
		loc.RawQuery = q.Encode()
		w.Header().Set("Location", loc.String())
	}
	w.ResponseWriter.WriteHeader(code)
}

// A consentPage is what the consent page shows: who asks, for whom, what
// it may do, and for how long.
type consentPage struct {
	said
	Site    string
	Host    string // the site's
	Client  string // the assistant's name, as its metadata gives it, or its host
	From    string // where it comes from: its metadata document's host
	Back    string // for a registered client, the host it sends the person back to
	Person  string // as the application names them
	Subject string // their Principal.ID
	Classes []consentClass
	Days    int    // how long a grant lasts unused
	Manage  string // the URL of the connected-assistants page
	Error   string // a key of the catalogue
	// sendsTo is the CSP source of the client's redirect URI: the
	// browser checks a form's redirects against form-action too, so the
	// Allow that redirects there is refused unless the policy names it.
	sendsTo string
}

// A consentClass is one trust class on the consent page.
type consentClass struct {
	Scope, Words string
	Checked      bool
	Ceiling      bool // asks for an amount
}

// classWords says what each scope lets an assistant do, for a person.
var classWords = map[string]string{
	"safe":      phrase("Read what you can read on the site"),
	"user":      phrase("Make ordinary changes to your account (a cart, a task), which can be undone"),
	"personal":  phrase("Read and change your personal data (addresses, your profile)"),
	"financial": phrase("Spend your money, up to the amount you set here"),
	"admin":     phrase("Administer the site with your administrator's powers"),
}

// classShort names each scope in a few words, on the assistants page.
var classShort = map[string]string{
	"safe":      phrase("read"),
	"user":      phrase("ordinary changes"),
	"personal":  phrase("personal data"),
	"financial": phrase("spending"),
	"admin":     phrase("administration"),
}

func (s *Server) consentPage(ar fosite.AuthorizeRequester, id, name string, p affordances.Principal) *consentPage {
	page := &consentPage{Site: s.opts.Name, Host: weborigin.Host(s.issuer), Person: p.ID, Subject: p.ID,
		Days: max(int(s.opts.RefreshTokenLifetime.Hours()/24), 1), Manage: s.issuer + AssistantsPath}
	if page.Site == "" {
		page.Site = page.Host
	}
	if n, ok := p.User.(fmt.Stringer); ok && n.String() != "" {
		page.Person = n.String()
	}
	page.sendsTo = cspSource(ar.GetRedirectURI())
	page.From = weborigin.Host(id)
	if !strings.HasPrefix(id, "https://") {
		page.From, page.Back = "", weborigin.Host(ar.GetRedirectURI().String())
	}
	page.Client = name
	if page.Client == "" {
		page.Client = weborigin.Host(id)
	}
	requested := ar.GetRequestedScopes()
	for _, sc := range Scopes {
		asked := slices.Contains(requested, sc) || len(requested) == 0
		if sc == "safe" || asked {
			page.Classes = append(page.Classes, consentClass{Scope: sc, Words: classWords[sc],
				Checked: sc == "safe" || sc == "user" || sc == "personal", Ceiling: sc == "financial"})
		}
	}
	return page
}

// amount is a ceiling as a person writes it: 50, 50.00, 1,250.5.
var amount = regexp.MustCompile(`^[0-9]{1,3}(,?[0-9]{3})*(\.[0-9]{1,2})?$`)

// grant is the grant of the client the person's form makes, with id, or
// what is wrong with the form. Its fields are named apart from the OAuth
// request's own (scope, resource), which its URL carries.
func (page *consentPage) grant(r *http.Request, id, client string) (*store.OAuthGrant, string) {
	g := &store.OAuthGrant{ID: id, Subject: page.Subject, Client: client, ClientName: page.Client, Created: time.Now()}
	offered := map[string]bool{}
	for _, c := range page.Classes {
		offered[c.Scope] = true
	}
	for _, sc := range r.PostForm["class"] {
		if !offered[sc] {
			return nil, phrase("The form named something to grant that this page did not offer.")
		}
		if !slices.Contains(g.Trust, sc) {
			g.Trust = append(g.Trust, sc)
		}
	}
	if !slices.Contains(g.Trust, "safe") {
		g.Trust = append([]string{"safe"}, g.Trust...)
	}
	if slices.Contains(g.Trust, "financial") {
		v := strings.TrimSpace(r.PostFormValue("ceiling"))
		n, err := strconv.ParseFloat(strings.ReplaceAll(v, ",", ""), 64)
		if !amount.MatchString(v) || err != nil || !(n > 0 && n <= aal.MaxAmount) {
			return nil, phrase("Set how much it may spend, an amount like 50 or 50.00, or untick spending.")
		}
		g.Currency, g.Ceiling = currencyOf(r.PostFormValue("currency")), n
	}
	return g, ""
}

// currencyOf is the currency the form names, USD when none.
func currencyOf(c string) string {
	if len(c) == 3 && strings.ToUpper(c) == c {
		return c
	}
	return "USD"
}

// cspSource is u as a CSP source expression: its origin, or its scheme
// alone for a private-use scheme (RFC 8252, section 7.1).
func cspSource(u *url.URL) string {
	if u == nil || u.Scheme == "" || strings.ContainsAny(u.Host, "; ,'\"") {
		return ""
	}
	if u.Host == "" || (u.Scheme != "http" && u.Scheme != "https") {
		return u.Scheme + ":"
	}
	return u.Scheme + "://" + u.Host
}

func (page *consentPage) render(w http.ResponseWriter, status int) {
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.Header().Set("Cache-Control", "no-store")
	w.Header().Set("Content-Security-Policy", "default-src 'none'; style-src 'unsafe-inline'; form-action 'self' "+page.sendsTo+"; frame-ancestors 'none'")
	w.Header().Set("X-Frame-Options", "DENY")
	w.WriteHeader(status)
	consentTemplate.Execute(w, page)
}

// style is the look of the server's pages, the approval page's.
const style = `body{font:16px/1.5 system-ui,sans-serif;margin:0;color:#1d232a}
.bar{background:#1d232a;color:#fff;padding:.75rem 1rem}.bar div{max-width:40rem;margin:0 auto;display:flex;flex-wrap:wrap;gap:.25rem 1rem;align-items:baseline}
.bar strong{font-size:1.1rem}.bar span{color:#c9d1d9;overflow-wrap:anywhere}
main{max-width:40rem;margin:1.5rem auto;padding:0 1rem}h1{font-size:1.5rem;margin:.1rem 0 1rem}
.who{font-size:1.15rem;background:#f4f6f8;border-left:4px solid #2f6fde;padding:.75rem 1rem;margin:1rem 0;overflow-wrap:anywhere}
fieldset{border:1px solid #c9d1d9;border-radius:.4rem;padding:.5rem 1rem;margin:1rem 0}label{display:block;margin:.4rem 0}
.ceiling{margin:.2rem 0 .6rem 1.7rem}.ceiling input{font:inherit;width:7rem}
.buttons{display:flex;gap:1rem;margin-top:1.5rem}button{font:inherit;padding:.6rem 1.4rem;border-radius:.4rem;border:1px solid #1d232a;background:#fff;cursor:pointer}
button.allow{background:#1f7a3d;border-color:#1f7a3d;color:#fff}.error{color:#8a1c12;font-weight:600}.muted{color:#5b6570}
table{border-collapse:collapse;width:100%}td,th{text-align:left;padding:.4rem .5rem;border-bottom:1px solid #e1e4e8;vertical-align:top}
@media (max-width:40rem){thead{display:none}table,tbody,tr,td{display:block}tr{border-bottom:1px solid #e1e4e8;padding:.5rem 0}td{border:0;padding:.15rem 0}td[data-label]::before{content:attr(data-label) ": ";font-weight:600}}`

var consentTemplate = template.Must(template.New("consent").Parse(`<!doctype html>
<html lang="{{.Lang}}"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>{{$.T "Connect %s" .Client}} · {{.Site}}</title><style>` + style + `</style></head><body>
<header class="bar"><div><strong>{{.Site}}</strong><span>{{.Host}}</span></div></header>
<main>
<h1>{{$.T "Connect an assistant to your account"}}</h1>
<p class="who">{{if .Back}}{{$.T "%s (registered here, sends you back to %s) asks to act on %s as you, %s." .Client .Back .Site .Person}}{{else}}{{$.T "%s (%s) asks to act on %s as you, %s." .Client .From .Site .Person}}{{end}}</p>
{{with .Error}}<p class="error" role="alert">{{$.T .}}</p>{{end}}
<form method="post">
<fieldset><legend>{{$.T "What it may do"}}</legend>
{{range .Classes}}<label><input type="checkbox" name="class" value="{{.Scope}}"{{if .Checked}} checked{{end}}{{if eq .Scope "safe"}} checked disabled{{end}}> {{$.T .Words}}</label>
{{if eq .Scope "safe"}}<input type="hidden" name="class" value="safe">{{end}}
{{if .Ceiling}}<div class="ceiling"><label>{{$.T "At most"}} <input name="ceiling" inputmode="decimal" placeholder="50.00" aria-label="{{$.T "The most it may spend"}}"> <input type="hidden" name="currency" value="USD">{{$.T "USD in all"}}</label></div>{{end}}
{{end}}</fieldset>
<p>{{$.T "Whatever you grant, it never confirms an order or a deletion for you: those still ask you, on this site."}}
{{$.T "It stays connected while it is used at least once every %d days, until you disconnect it on %s." .Days .Manage}}</p>
<div class="buttons"><button class="allow" type="submit" name="decision" value="allow">{{$.T "Allow"}}</button><button type="submit" name="decision" value="deny">{{$.T "Deny"}}</button></div>
</form>
</main></body></html>
`))

// serveAssistants is the person's page of connected assistants: each one,
// what it may do and may still spend, when it last acted, and a button
// that disconnects it, ending its tokens at once.
func (s *Server) serveAssistants(w http.ResponseWriter, r *http.Request) {
	ctx := r.Context()
	p, err := s.person(r)
	if errors.Is(err, errNotBrowser) {
		http.Error(w, "Forbidden: manage assistants in your browser, signed in on the site; a token cannot.", http.StatusForbidden)
		return
	}
	if err != nil {
		s.logger.Error("oauth: authenticating the person at the assistants page", "err", err)
		http.Error(w, "Something went wrong on the server. Try again later.", http.StatusInternalServerError)
		return
	}
	if p.Anonymous() {
		http.Redirect(w, r, s.opts.SignIn+"?next="+url.QueryEscape(AssistantsPath), http.StatusSeeOther)
		return
	}
	page := &assistantsPage{said: s.langs.of(r, p), Site: s.opts.Name, Host: weborigin.Host(s.issuer)}
	if page.Site == "" {
		page.Site = page.Host
	}
	status := http.StatusOK
	if r.Method == http.MethodPost {
		if err := sameSite(r); err != nil {
			page.Error, status = phrase("This form was posted from another site, so it was refused. Nothing changed."), http.StatusForbidden
		} else if err := s.disconnect(ctx, p.ID, r.PostFormValue("grant")); err != nil {
			s.logger.Error("oauth: disconnecting an assistant", "err", err)
			page.Error, status = phrase("Something went wrong on the server. Try again later."), http.StatusInternalServerError
		} else {
			http.Redirect(w, r, AssistantsPath, http.StatusSeeOther)
			return
		}
	}
	grants, err := s.st.Grants(ctx, p.ID)
	if err != nil {
		s.logger.Error("oauth: listing a person's grants", "err", err)
		http.Error(w, "Something went wrong on the server. Try again later.", http.StatusInternalServerError)
		return
	}
	for _, g := range grants {
		var may []string
		for _, t := range g.Trust {
			may = append(may, page.T(cmp.Or(classShort[t], t)))
		}
		from := weborigin.Host(g.Client)
		if !strings.HasPrefix(g.Client, "https://") {
			from = page.T("registered here") // its id says nothing to a person
		}
		row := assistantRow{ID: g.ID, Name: g.ClientName, From: from, Trust: strings.Join(may, ", "),
			Since: g.Created.UTC().Format("2006-01-02")}
		if row.Name == "" {
			row.Name = row.From
		}
		if g.Currency != "" {
			row.Left = (aal.Cost{Currency: g.Currency, Amount: g.Ceiling - g.Spent}).String()
		}
		if !g.LastUsed.IsZero() {
			row.Last = g.LastUsed.UTC().Format("2006-01-02 15:04 UTC")
		}
		page.Rows = append(page.Rows, row)
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.Header().Set("Cache-Control", "no-store")
	w.Header().Set("Content-Security-Policy", "default-src 'none'; style-src 'unsafe-inline'; form-action 'self'; frame-ancestors 'none'")
	w.WriteHeader(status)
	assistantsTemplate.Execute(w, page)
}

// disconnect revokes the person's grant id: another's is as unknown.
func (s *Server) disconnect(ctx context.Context, person, id string) error {
	g, err := s.st.Grant(ctx, id)
	if err != nil || g == nil || g.Subject != person {
		return err
	}
	return s.st.RevokeGrant(ctx, id)
}

type assistantsPage struct {
	said
	Site, Host, Error string
	Rows              []assistantRow
}

type assistantRow struct {
	ID, Name, From, Trust, Left, Since, Last string
}

var assistantsTemplate = template.Must(template.New("assistants").Parse(`<!doctype html>
<html lang="{{.Lang}}"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>{{$.T "Connected assistants"}} · {{.Site}}</title><style>` + style + `</style></head><body>
<header class="bar"><div><strong>{{.Site}}</strong><span>{{.Host}}</span></div></header>
<main><h1>{{$.T "Connected assistants"}}</h1>
{{with .Error}}<p class="error" role="alert">{{$.T .}}</p>{{end}}
{{if .Rows}}<table><thead><tr><th>{{$.T "Assistant"}}</th><th>{{$.T "May"}}</th><th>{{$.T "Last acted"}}</th><th></th></tr></thead><tbody>
{{range .Rows}}<tr><td><strong>{{.Name}}</strong><br><span class="muted">{{$.T "%s, since %s" .From .Since}}</span></td>
<td data-label="{{$.T "May"}}">{{.Trust}}{{with .Left}}<br><span class="muted">{{$.T "may still spend %s" .}}</span>{{end}}</td><td data-label="{{$.T "Last acted"}}">{{with .Last}}{{.}}{{else}}{{$.T "never"}}{{end}}</td>
<td><form method="post"><input type="hidden" name="grant" value="{{.ID}}"><button type="submit">{{$.T "Disconnect"}}</button></form></td></tr>
{{end}}</tbody></table>
{{else}}<p>{{$.T "No assistant is connected to your account."}}</p>{{end}}
</main></body></html>
`))
