package affordances

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"html/template"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/affordances/affordances-go/aal"
	"github.com/affordances/affordances-go/internal/display"
	"github.com/affordances/affordances-go/internal/mediatype"
	"github.com/affordances/affordances-go/store"
)

// ApprovalsPath is where a site serves its approval pages, one per call
// awaiting a person's approval: ApprovalsPath + the approval's id
// (CLARIFICATIONS 10, human-verified confirmation).
const ApprovalsPath = "/.well-known/affordances/approvals/"

// An ApprovalStatus is an approval page asked for as JSON ([MediaType]):
// what an agent polls, with the caller's own credentials, while the person
// decides.
type ApprovalStatus struct {
	ID      string              `json:"id"`
	State   store.ApprovalState `json:"state" jsonschema:"pending, approved or denied"`
	Expires time.Time           `json:"expires"`
	Page    string              `json:"page"`
	Action  string              `json:"action"`
}

// serveApproval answers an approval page. GET shows the call to the person
// who made it (their session, or their token for the JSON status): the
// site's summary, the page, the action and its AAL classes and cost, the
// input, and Approve and Deny buttons. POST records the decision: only
// from that person's browser session (a cookie, and the browser's origin
// headers, checked as for any form), never from a bearer token, so an
// agent cannot approve its own call.
func (s *Site) serveApproval(w http.ResponseWriter, r *http.Request) {
	id := strings.TrimPrefix(r.URL.Path, ApprovalsPath)
	w.Header().Set("Cache-Control", "no-store")
	w.Header().Set("Vary", "Accept, Cookie, Authorization")
	asJSON := mediatype.Accepts(r.Header.Values("Accept"), MediaType)
	fail := func(e *Error) {
		if asJSON {
			s.writeResponse(w, r, s.failure(e, "approval"))
			return
		}
		s.renderApproval(w, r, e.HTTPStatus(), &approvalPage{Site: s.opts.Name, Error: s.localize(r, e).Message})
	}
	p, err := s.authenticate(r)
	if err != nil {
		fail(s.public(err, "approval"))
		return
	}
	if p.Anonymous() {
		fail(libError(Unauthorized, phrase("Sign in to this site in this browser, as the account that made the call, then open this link again.")))
		return
	}
	ctx := r.Context()
	ap, err := s.appr.Get(ctx, id)
	switch {
	case err != nil:
		fail(s.public(err, "approvals store"))
		return
	case ap == nil || ap.Principal != p.ID:
		// Another account's approval is as unknown as a made-up one.
		fail(libError(NotFound, phrase("This approval is unknown or has expired. Ask your agent to try again for a new link.")))
		return
	}
	if r.Method == http.MethodPost {
		if err := s.checkFormOrigin(r); err != nil || !byPerson(&Request{HTTP: r, Principal: p}) {
			fail(forbidden(phrase("Approve or deny on this page, in the browser where you are signed in.")))
			return
		}
		r.Body = http.MaxBytesReader(w, r.Body, 4096)
		decision := r.PostFormValue("decision")
		if decision != "approve" && decision != "deny" {
			fail(libError(InvalidInput, phrase("Choose Approve or Deny.")))
			return
		}
		if ap, err = s.appr.Decide(ctx, id, decision == "approve"); err != nil {
			if errors.Is(err, store.ErrApprovalClosed) {
				fail(libError(Unavailable, phrase("This call was decided already, or its approval expired.")))
				return
			}
			fail(s.public(err, "approvals store"))
			return
		}
	} else if r.Method != http.MethodGet && r.Method != http.MethodHead {
		w.Header().Set("Allow", "GET, HEAD, POST")
		http.Error(w, "method not allowed", http.StatusMethodNotAllowed)
		return
	}
	if asJSON {
		b, _ := json.Marshal(ApprovalStatus{ID: ap.ID, State: ap.State, Expires: ap.Expires.UTC().Truncate(time.Second), Page: ap.Page, Action: ap.Action})
		w.Header().Set("Content-Type", MediaType)
		w.Write(b)
		return
	}
	s.renderApproval(w, r, http.StatusOK, s.approvalPage(ctx, r, p, ap))
}

// approvalPage is what the approval page shows of ap: the text that came
// from the call or the site's state (the summary, the page, the label, the
// input) with every character a person could not see made visible, as
// [aal.Visible] writes it; the input stays JSON, escaping them as JSON does.
func (s *Site) approvalPage(ctx context.Context, r *http.Request, p Principal, ap *store.Approval) *approvalPage {
	page := &approvalPage{Site: s.opts.Name, Summary: aal.Visible(ap.Summary), Page: aal.Visible(ap.Page), State: ap.State,
		Label: aal.Visible(ap.Action), Input: aal.Visible(string(ap.Input)), Expires: when(ap.Expires)}
	var pretty bytes.Buffer
	if json.Indent(&pretty, ap.Input, "", "  ") == nil {
		page.Input = display.EscapeHidden(pretty.String())
	}
	own, _ := s.own(ap.Page)
	rt, params := s.lookup((&url.URL{Path: own}).EscapedPath())
	if rt == nil {
		return page
	}
	a := rt.byName[ap.Action]
	if a == nil {
		return page
	}
	page.Description = a.Description
	aff := a.aal.Affordance
	if a.aal.cost != nil {
		// The cost as the page's state says now, loaded as the person.
		if req, err := s.load(ctx, withURL(r, func(u *url.URL) { u.Path, u.RawPath, u.RawQuery = own, "", "" }), rt, params, p); err == nil {
			aff.Cost = a.aal.cost(req.State.Entities)
		}
	}
	if aff.Label != "" {
		page.Label = aal.Visible(aff.Label)
	}
	as := aal.Classify(aff, string(a.Expose))
	for _, c := range as.Classes {
		page.Classes = append(page.Classes, class(c))
	}
	if !as.Reversible {
		page.Classes = append(page.Classes, phrase("cannot be undone"))
	}
	if as.Amount != nil {
		page.Cost = as.Amount.String()
	}
	return page
}

// class names an AAL class for a person.
func class(c aal.Class) text {
	switch c {
	case aal.ClassDestructive:
		return phrase("destructive")
	case aal.ClassFinancial:
		return phrase("financial")
	case aal.ClassAdmin:
		return phrase("admin")
	case aal.ClassConfirm:
		return phrase("confirm")
	}
	return text{format: strings.ReplaceAll(string(c), "%", "%%")} // a class this version does not know, as it is
}

// when says t for a person, in UTC: "15:04 UTC, 2 January 2006".
func when(t time.Time) text {
	t = t.UTC()
	return phrase("%s UTC, %d %s %d", t.Format("15:04"), t.Day(), months[t.Month()-1], t.Year())
}

var months = [...]text{
	phrase("January"), phrase("February"), phrase("March"), phrase("April"), phrase("May"), phrase("June"),
	phrase("July"), phrase("August"), phrase("September"), phrase("October"), phrase("November"), phrase("December"),
}

// An approvalPage is the data of approvalTemplate: the text it shows, made
// visible, and the language it speaks.
type approvalPage struct {
	Site        string
	Error       string // the page is a refusal
	Summary     string
	Page        string
	State       store.ApprovalState
	Label       string // the action's AAL label, or its name
	Description string
	Input       string // indented JSON
	Classes     []text
	Cost        string
	Expires     text

	Lang string            // its BCP 47 tag
	msgs map[string]string // its messages (i18n.go)
}

// T says the template's text format, a key of the catalogue, with args.
func (p *approvalPage) T(format string, args ...any) template.HTML { return p.Say(text{format, args}) }

// Say says t, escaped as the text of an element, where a quote needs no
// escaping (the page reads "Your agent's call" as written); html/template
// escapes it further wherever else it goes.
func (p *approvalPage) Say(t text) template.HTML {
	return template.HTML(elementText.Replace(t.in(p.msgs)))
}

var elementText = strings.NewReplacer("&", "&amp;", "<", "&lt;", ">", "&gt;")

// renderApproval writes page in the language of r.
func (s *Site) renderApproval(w http.ResponseWriter, r *http.Request, status int, page *approvalPage) {
	i := s.language(r)
	page.Lang, page.msgs = s.lang.tags[i].String(), s.lang.msgs[i]
	w.Header().Set("Content-Language", page.Lang)
	if s.lang.matcher != nil {
		w.Header().Add("Vary", "Accept-Language")
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.Header().Set("Content-Security-Policy", "default-src 'none'; style-src 'unsafe-inline'; form-action 'self'; frame-ancestors 'none'")
	w.Header().Set("X-Frame-Options", "DENY")
	w.WriteHeader(status)
	approvalTemplate.Execute(w, page)
}

// approvalTemplate is the approval page: everything on it that came from
// the call (the input) or from other people is escaped text. It cannot be
// framed, so no other page can trick a click on Approve.
var approvalTemplate = template.Must(template.New("approval").Parse(`<!doctype html>
<html lang="{{.Lang}}"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>{{if .Error}}{{$.T "Approval"}}{{else}}{{$.T "Approve: %s" .Label}}{{end}}{{with .Site}} · {{.}}{{end}}</title>
<style>
body{font:16px/1.5 system-ui,sans-serif;max-width:40rem;margin:2rem auto;padding:0 1rem;color:#1d232a}
h1{font-size:1.4rem;margin:0 0 .25rem}.site{color:#5b6570;margin:0 0 1.5rem}
.summary{font-size:1.15rem;background:#f4f6f8;border-left:4px solid #2f6fde;padding:.75rem 1rem;margin:1rem 0}
dl{display:grid;grid-template-columns:8rem 1fr;gap:.4rem 1rem;margin:1rem 0}dt{color:#5b6570}dd{margin:0}
pre{background:#f4f6f8;padding:.75rem;overflow:auto;font-size:.9rem;margin:0}
.classes span{display:inline-block;background:#fdecea;color:#8a1c12;border-radius:1rem;padding:0 .6rem;margin:0 .3rem .3rem 0;font-size:.9rem}
.buttons{display:flex;gap:1rem;margin-top:1.5rem}.buttons form{margin:0}
button{font:inherit;padding:.6rem 1.4rem;border-radius:.4rem;border:1px solid #1d232a;background:#fff;cursor:pointer}
button.approve{background:#1f7a3d;border-color:#1f7a3d;color:#fff}
.state{font-size:1.15rem;font-weight:600}.approved{color:#1f7a3d}.denied{color:#8a1c12}.error{color:#8a1c12}
</style></head><body><main>
{{if .Error}}<h1>{{$.T "Approval"}}</h1>{{with .Site}}<p class="site">{{.}}</p>{{end}}<p class="error">{{.Error}}</p>
{{else}}
<h1>{{$.T "Approve: %s" .Label}}</h1>{{with .Site}}<p class="site">{{$.T "%s asks you to approve a call your agent made." .}}</p>{{end}}
<p class="summary">{{.Summary}}</p>
<dl>
<dt>{{$.T "Action"}}</dt><dd>{{.Label}}{{with .Description}} — {{.}}{{end}}</dd>
<dt>{{$.T "Page"}}</dt><dd>{{.Page}}</dd>
{{with .Cost}}<dt>{{$.T "Cost"}}</dt><dd>{{.}}</dd>{{end}}
{{with .Classes}}<dt>{{$.T "Risk"}}</dt><dd class="classes">{{range .}}<span>{{$.Say .}}</span>{{end}}</dd>{{end}}
<dt>{{$.T "Input"}}</dt><dd><pre>{{.Input}}</pre></dd>
<dt>{{$.T "Expires"}}</dt><dd>{{$.Say .Expires}}</dd>
</dl>
{{if eq (print .State) "pending"}}
<p>{{$.T "Nothing has happened yet. Approve to let your agent's call run once; deny and it never runs."}}</p>
<div class="buttons">
<form method="post"><input type="hidden" name="decision" value="approve"><button class="approve" type="submit">{{$.T "Approve"}}</button></form>
<form method="post"><input type="hidden" name="decision" value="deny"><button type="submit">{{$.T "Deny"}}</button></form>
</div>
{{else if eq (print .State) "approved"}}<p class="state approved">{{$.T "Approved. Your agent's call will run once when it sends it again."}}</p>
{{else}}<p class="state denied">{{$.T "Denied. The call will not run."}}</p>{{end}}
{{end}}
</main></body></html>
`))
