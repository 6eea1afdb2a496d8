package affordances

import (
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"html/template"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/affordances/affordances-go/aal"
	"github.com/affordances/affordances-go/internal/crosssite"
	"github.com/affordances/affordances-go/internal/mediatype"
	"github.com/affordances/affordances-go/internal/weborigin"
	"github.com/affordances/affordances-go/store"
)

// ApprovalsPath + an approval's id is the page where a person approves a
// call (docs/protocol.md decision 10).
const ApprovalsPath = "/.well-known/affordances/approvals/"

// An ApprovalStatus is an approval page asked for as [MediaType], which the
// caller polls while the person decides.
type ApprovalStatus struct {
	ID      string        `json:"id"`
	State   ApprovalState `json:"state" jsonschema:"pending, approved or denied"`
	Expires time.Time     `json:"expires"`
	Page    string        `json:"page"`
	Action  string        `json:"action"`
}

// An ApprovalState is where an approval stands.
type ApprovalState string

// The states of an approval.
const (
	ApprovalPending  ApprovalState = "pending"
	ApprovalApproved ApprovalState = "approved"
	ApprovalDenied   ApprovalState = "denied"
)

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
	var p Principal // who asks, once known
	fail := func(e *Error) {
		if asJSON {
			s.writeResponse(w, r, p, s.failure(e, "approval"))
			return
		}
		s.renderApproval(w, r, p, e.HTTPStatus(), &approvalPage{Site: s.opts.Name, Host: weborigin.Host(s.origin(r)), Error: s.localize(r, p, e).Message})
	}
	p, err := s.authenticate(r)
	if err != nil {
		fail(s.public(err, "approval"))
		return
	}
	if p.Anonymous() && !asJSON && crosssite.Arrived(r) {
		// From the assistant's window, whose link a SameSite=Strict
		// session cookie does not follow: the page again, from here.
		crosssite.Reload(w, r)
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
		if decision == "approve" {
			if page := s.approvalPage(ctx, r, p, ap); page.Changed {
				if asJSON {
					fail(libError(Unavailable, changedSince))
					return
				}
				s.renderApproval(w, r, p, http.StatusConflict, page)
				return
			}
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
		b, _ := json.Marshal(ApprovalStatus{ID: ap.ID, State: ApprovalState(ap.State), Expires: ap.Expires.UTC().Truncate(time.Second), Page: ap.Page, Action: ap.Action})
		w.Header().Set("Content-Type", MediaType)
		w.Write(b)
		return
	}
	s.renderApproval(w, r, p, http.StatusOK, s.approvalPage(ctx, r, p, ap))
}

// changedSince is what the approval page says of a call whose page no
// longer holds what its summary was written from.
var changedSince = phrase("This has changed since your agent asked, so there is nothing to approve here: the page no longer shows what this call was asked for. Nothing ran. Ask your agent to try again.")

// approvalPage is what the approval page shows of ap: the figures of the
// call as they were when it was asked for (its summary, its cost, its
// input), never the page's state of the moment, which only says whether
// they still hold: while ap is pending and the state its summary was
// written from ([Action.Consent]) or its cost is not what it was, the
// page says so (Changed) and offers nothing to approve. Text that came
// from the call or the site has every character a person could not see
// made visible, as [aal.Visible] writes it.
func (s *Site) approvalPage(ctx context.Context, r *http.Request, p Principal, ap *store.Approval) *approvalPage {
	page := &approvalPage{Site: s.opts.Name, Host: weborigin.Host(s.origin(r)), Summary: aal.Visible(ap.Summary), Page: aal.Visible(ap.Page),
		State: ap.State, Label: aal.Visible(ap.Action), Cost: aal.Visible(ap.Cost), Input: inputFields(ap.Input), Expires: when(ap.Expires)}
	own, _ := s.own(ap.Page)
	rt, params := s.lookup((&url.URL{Path: own}).EscapedPath())
	var a *action
	if rt != nil {
		a = rt.byName[ap.Action]
	}
	if a == nil { // the site no longer has the call's action
		page.Changed = ap.State == store.ApprovalPending
		return page
	}
	page.Description = a.Description
	aff := a.aal.Affordance
	if aff.Label != "" {
		page.Label = aal.Visible(aff.Label)
	}
	as := aal.Classify(aff, string(a.Expose))
	for _, c := range as.Classes {
		if c != aal.ClassConfirm { // every call on this page is one
			page.Risks = append(page.Risks, risk(c))
		}
	}
	if !as.Reversible {
		page.Risks = append(page.Risks, phrase("It cannot be undone."))
	}
	if ap.State == store.ApprovalPending && (len(a.Consent) > 0 || a.aal.cost != nil) {
		// The state as the person would find it now, loaded as them.
		get := withURL(r, func(u *url.URL) { u.Path, u.RawPath, u.RawQuery = own, "", "" })
		get.Method, get.Body, get.ContentLength = http.MethodGet, http.NoBody, 0
		req, err := s.load(ctx, get, rt, params, p)
		page.Changed = err != nil || !holds(a, req.State.Entities, ap)
	}
	return page
}

// holds reports whether entities, a page's state, are still what ap's
// summary was written from: the same digest of a's Consent, the same cost.
func holds(a *action, entities map[string]any, ap *store.Approval) bool {
	consent, err := consentDigest(a.Consent, entities)
	if err != nil || consent != ap.Consent {
		return false
	}
	aff, err := a.affordance(entities)
	return err == nil && costOf(aff) == ap.Cost
}

// costOf is the cost of aff as a person is shown it ("USD 96.00"), or ""
// when it charges nothing.
func costOf(aff aal.Affordance) string {
	if aff.Cost == nil || !(aff.Cost.Amount > 0) {
		return ""
	}
	return aff.Cost.String()
}

// An inputField is one member of a call's input, for a person: its name,
// and its value as a string (bare) or as JSON.
type inputField struct{ Name, Value string }

// inputFields returns the members of input, a JSON object, in its order,
// made visible; none for an empty object; one unnamed field holding
// input whole when it is not an object.
func inputFields(input json.RawMessage) []inputField {
	d := json.NewDecoder(bytes.NewReader(input))
	d.UseNumber()
	var fields []inputField
	if t, err := d.Token(); err != nil || t != json.Delim('{') {
		return whole(input)
	}
	for d.More() {
		name, err := d.Token()
		var v json.RawMessage
		if err != nil || d.Decode(&v) != nil {
			return whole(input)
		}
		value := string(v)
		var str string
		if json.Unmarshal(v, &str) == nil {
			value = str
		}
		fields = append(fields, inputField{aal.Visible(name.(string)), aal.Visible(value)})
	}
	return fields
}

// whole is input shown as one unnamed field, or none when it is empty.
func whole(input json.RawMessage) []inputField {
	if len(bytes.TrimSpace(input)) == 0 {
		return nil
	}
	return []inputField{{Value: aal.Visible(string(input))}}
}

// risk says what a call of an AAL class does, for a person.
func risk(c aal.Class) text {
	switch c {
	case aal.ClassDestructive:
		return phrase("It deletes or overwrites something.")
	case aal.ClassFinancial:
		return phrase("It spends money.")
	case aal.ClassAdmin:
		return phrase("It uses an administrator's powers.")
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
	Site        string // the site's name, or empty
	Host        string // the site's host, shown plainly
	Error       string // the page is a refusal
	Summary     string // the site's words for the call
	Page        string
	State       store.ApprovalState
	Changed     bool   // pending, but the page no longer holds what Summary describes
	Label       string // the action's AAL label, or its name
	Description string
	Input       []inputField
	Risks       []text
	Cost        string
	Expires     text

	Lang string            // its BCP 47 tag
	msgs map[string]string // its messages (i18n.go)
}

// Name is the site as the page names it: its name, else its host.
func (p *approvalPage) Name() string { return cmp.Or(p.Site, p.Host) }

// ChangedSince is what the page says when Changed.
func (p *approvalPage) ChangedSince() text { return changedSince }

// T says the template's text format, a key of the catalogue, with args.
func (p *approvalPage) T(format string, args ...any) template.HTML { return p.Say(text{format, args}) }

// Say says t, escaped as the text of an element, where a quote needs no
// escaping (the page reads "Your agent's call" as written); html/template
// escapes it further wherever else it goes.
func (p *approvalPage) Say(t text) template.HTML {
	return template.HTML(elementText.Replace(t.in(p.msgs)))
}

var elementText = strings.NewReplacer("&", "&amp;", "<", "&lt;", ">", "&gt;")

// renderApproval writes page in the language of who, the requester of r.
func (s *Site) renderApproval(w http.ResponseWriter, r *http.Request, who Principal, status int, page *approvalPage) {
	i := s.language(r, who)
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
<title>{{if .Error}}{{$.T "Approval"}}{{else}}{{$.T "Approve: %s" .Label}}{{end}} · {{.Name}}</title>
<style>
body{font:16px/1.5 system-ui,sans-serif;margin:0;color:#1d232a}
.bar{background:#1d232a;color:#fff;padding:.75rem 1rem}.bar div{max-width:40rem;margin:0 auto;display:flex;flex-wrap:wrap;gap:.25rem 1rem;align-items:baseline}
.bar strong{font-size:1.1rem}.bar span{color:#c9d1d9;overflow-wrap:anywhere}
main{max-width:40rem;margin:1.5rem auto;padding:0 1rem}
.ask{color:#5b6570;margin:0}h1{font-size:1.5rem;margin:.1rem 0 1rem}
.summary{font-size:1.15rem;background:#f4f6f8;border-left:4px solid #2f6fde;padding:.75rem 1rem;margin:1rem 0;overflow-wrap:anywhere}
.cost{font-size:1.25rem;font-weight:600;margin:1rem 0}
.risks{margin:1rem 0;padding:0;list-style:none}.risks li{color:#8a1c12;margin:.2rem 0}.risks li::before{content:"⚠ "}
dl{display:grid;grid-template-columns:minmax(6rem,max-content) 1fr;gap:.4rem 1rem;margin:1rem 0}dt{color:#5b6570}dd{margin:0;overflow-wrap:anywhere}
dl dl{margin:0}
.buttons{display:flex;gap:1rem;margin-top:1.5rem}.buttons form{margin:0}
button{font:inherit;padding:.6rem 1.4rem;border-radius:.4rem;border:1px solid #1d232a;background:#fff;cursor:pointer}
button.approve{background:#1f7a3d;border-color:#1f7a3d;color:#fff}
.state{font-size:1.15rem;font-weight:600}.approved{color:#1f7a3d}.denied,.error,.changed{color:#8a1c12}
.changed{font-weight:600;border:2px solid #8a1c12;border-radius:.4rem;padding:.75rem 1rem}
</style></head><body>
<header class="bar"><div><strong>{{.Name}}</strong>{{if .Site}}<span>{{.Host}}</span>{{end}}</div></header>
<main>
{{if .Error}}<h1>{{$.T "Approval"}}</h1><p class="error">{{.Error}}</p>
{{else}}
<p class="ask">{{$.T "Your agent asks you to approve this on %s:" .Name}}</p>
<h1>{{.Label}}</h1>
{{if .Changed}}<p class="changed" role="alert">{{$.Say .ChangedSince}}</p>{{end}}
<p class="summary">{{.Summary}}</p>
{{with .Cost}}<p class="cost">{{$.T "Cost: %s" .}}</p>{{end}}
{{with .Risks}}<ul class="risks">{{range .}}<li>{{$.Say .}}</li>{{end}}</ul>{{end}}
<dl>
{{with .Description}}<dt>{{$.T "What it does"}}</dt><dd>{{.}}</dd>{{end}}
{{with .Input}}<dt>{{$.T "Details"}}</dt><dd><dl>{{range .}}{{with .Name}}<dt>{{.}}</dt>{{end}}<dd>{{.Value}}</dd>{{end}}</dl></dd>{{end}}
<dt>{{$.T "Page"}}</dt><dd>{{.Page}}</dd>
<dt>{{$.T "Link expires"}}</dt><dd>{{$.Say .Expires}}</dd>
</dl>
{{if .Changed}}
{{else if eq (print .State) "pending"}}
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
