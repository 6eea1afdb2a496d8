package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	affordances "github.com/affordances/affordances-go"
	"github.com/affordances/affordances-go/aal"
	"github.com/affordances/affordances-go/agent"
	"github.com/affordances/affordances-go/internal/aalpage"
	"github.com/affordances/affordances-go/internal/display"
)

var callCommand = &command{
	Name:    "call",
	Args:    "URL ACTION [JSON|@FILE|-]",
	Summary: "Call an action on a page and print the delta; a person approves what needs their approval.",
	Details: `The input is JSON text, @FILE to read it from a file, or - to read it from
standard input; without one the call has no input. The call goes through
the AAL gate (docs/protocol.md decision 8): an action that is destructive and cannot
be undone, financial, admin, or a "confirm" action needs a person's
approval unless a --grant covers it; a site that answers confirm_required
needs it too. confirm: true is sent only after that approval.

Approval: on a terminal, the call shows what needs approval (the action,
its label, the classes, the amount, the site's message verbatim, the input)
and asks "Approve? [y/N]". With no terminal it does not ask: it prints what
needs approval (on stderr, or as JSON with --json) and exits 3, nothing
done. --approve is the person's explicit approval of this one call; never
give it on a model's behalf. --unattended refuses instead of asking.

Approval on the site's own page (human-verified confirmation,
docs/protocol.md decision 10; the demo shop asks it for every order): a site may have
the person approve a confirm call on its approval page, in their own
browser. Then --approve, --grant and a y typed here do not approve the
call, and nothing is asked here: the call prints the site's summary and the
page's URL on stderr, and on a terminal waits, showing how long, while the
person opens the URL signed in as the account that made the call, and
approves or denies. Approved, the call is sent with confirm: true and runs
once. Denied, or not decided within --approval-timeout (by default, until
the page expires), nothing is done and the exit status is 3.

With no terminal (an agent's harness, a script) and no --approval-timeout,
the call does not wait for a page nobody may open: it checks the page once,
and unless the person already decided there, it prints the URL and exits
5, pending, nothing done. Once the person approves, the same call run again
finds the same page (while it lasts) and runs; denied, it stays denied.
--approval-timeout 10m waits for them instead, with no terminal too.
--unattended neither waits nor checks: exit 5. With --json the output
carries the page as "approvalPage": its url, expires and outcome (approved,
denied, timeout, or pending when not waited for).

The delta is printed on stdout: ok or the error's code and message, each
changed entity on one line, the output, the actions added and removed, the
redirect, the site's message; --json prints the delta itself.

` + aalHelp + ` There ACTION is the affordance's id;
call prints what it did (the fields filled, the click), where the form went,
and the page it led to with its affordances; --json prints them as one
object. The gate, --approve, --grant and --unattended work as for a graph's
actions; nothing is clicked without the approval the gate asks for.
Instead of a cookie file, --browser-profile gives the person's own Chromium
profile directory (their sessions; nothing of another origin is opened with
it, and no other Chromium may have it open meanwhile).

` + authHelp + `

` + exitCodesHelp,
	Example: `affordances call --token demo http://127.0.0.1:8080/products/canvas-tote addToCart '{"sku":"TOTE-NAT","quantity":2}'
affordances call http://127.0.0.1:8080/ search '{"q":"tote"}' --json
# sign in with a cookie session kept in jar.txt, then use it
affordances call --cookie-jar jar.txt http://127.0.0.1:8080/login signIn @credentials.json
# the demo shop has the person approve each order on its approval page: this
# prints the page's URL and waits, at most 5 minutes, for their decision there
affordances call --cookie-jar jar.txt --approval-timeout 5m http://127.0.0.1:8080/checkout placeOrder
# on a site without an approval page of its own, the person answers here
affordances call --token demo http://127.0.0.1:8080/checkout placeOrder   # asks Approve? [y/N]
# the person's standing grants (purchases up to 50 USD on this site) let the gate
# through; the site still answers confirm_required, and its summary is asked about
affordances call --token demo --grant financial:50USD --grant destructive --grant confirm http://127.0.0.1:8080/checkout placeOrder
# a site that publishes AAL only (affordances demo plain): the form filled and sent in Chromium
affordances call http://127.0.0.1:8082/notes add-note '{"title":"Tea","body":"Green, at four."}'
affordances call --approve http://127.0.0.1:8082/notes delete-note '{"id":"n-1"}'`,
	Flags: func(fs *flag.FlagSet) func(context.Context, *env, []string) error {
		var f agentFlags
		f.declare(fs, true)
		approve := fs.Bool("approve", false, "the person's explicit approval of this one call; never give it on a model's behalf\n(it does not approve a call the site has the person approve on its own page)")
		fs.DurationVar(&f.approvalTimeout, "approval-timeout", 0, "how long to wait for the person's decision on a site's approval page\n(default: on a terminal, until the page expires, 15 minutes on sites of this library;\nwith no terminal, no wait: exit 5, pending)")
		fs.StringVar(&f.profile, "browser-profile", "", "on a page without an Affordances graph, the person's Chromium profile `directory`\n(their sessions; not opened by another Chromium meanwhile) instead of a fresh one")
		return func(ctx context.Context, e *env, args []string) (err error) {
			if len(args) < 2 || len(args) > 3 {
				return usagef("call takes URL ACTION and at most one input (JSON, @FILE or -); got %d arguments", len(args))
			}
			if f.approvalTimeout < 0 {
				return usagef("--approval-timeout %s: want a positive duration such as 5m", f.approvalTimeout)
			}
			var input json.RawMessage
			if len(args) == 3 {
				if input, err = readInput(e, args[2]); err != nil {
					return err
				}
			}
			ap := &approval{e: e, approve: *approve, unattended: f.unattended,
				wait: !f.unattended && (e.terminal() || f.approvalTimeout > 0)}
			s, err := f.open(e, args[0], ap)
			if err != nil {
				return err
			}
			defer func() { err = s.close(err) }()
			switch aalPage, err := s.loadAAL(ctx); {
			case err == nil:
				return runAALCall(ctx, e, &f, s, aalPage, args[1], input, ap)
			case !errors.Is(err, aalpage.ErrGraph):
				return &networkError{err}
			}
			if f.profile != "" {
				return usagef("--browser-profile is for a page without an Affordances graph; %s has one", args[0])
			}
			page, err := s.loadPage(ctx)
			if err != nil {
				return reportSiteError(e, f.json, err)
			}
			return runCall(ctx, e, &f, page, args[1], input, ap)
		}
	},
}

// approval is the call's [agent.Approver]: --approve says yes, a
// person on a terminal is asked, and with neither the answer is no. A call
// the site has the person approve on its approval page is never approved
// here: the person is sent to the page, and the answer is "wait"
// (unless --unattended), for as long as wait allows. It keeps the request
// it was asked about, to print it, and shows the wait ([approval.waiting]).
type approval struct {
	e          *env
	approve    bool
	unattended bool
	// wait says the call waits for the person's decision on an approval
	// page (a terminal, or --approval-timeout); false: it checks the page
	// once.
	wait  bool
	asked *agent.ApprovalRequest

	// The progress of the wait on the approval page.
	shown    bool          // a progress line was printed
	lastShow time.Duration // the wait it showed
	open     bool          // the terminal's progress line ends without a newline
}

func (a *approval) Approve(_ context.Context, req *agent.ApprovalRequest) (bool, error) {
	a.asked = req
	switch {
	case req.URL != "":
		return a.sendToPage(req), nil
	case a.approve:
		describeApproval(a.e.stderr, req)
		fmt.Fprintln(a.e.stderr, "Approved with --approve.")
		return true, nil
	case a.e.terminal():
		return askApproval(a.e.input(), a.e.stderr, req)
	}
	return false, nil
}

// sendToPage tells the person to decide on the site's approval page and
// reports whether to wait for them: not with --unattended.
func (a *approval) sendToPage(req *agent.ApprovalRequest) bool {
	w := a.e.stderr
	describeApproval(w, req)
	fmt.Fprintln(w, "This site has the person approve this call on its own page: --approve, --grant and a y typed here do not approve it.")
	if a.unattended {
		fmt.Fprintf(w, "--unattended: not waiting for a decision on the approval page %s\n", aal.Visible(req.URL))
		return false
	}
	fmt.Fprintf(w, "Open this page in your browser, signed in as the account that made the call, and approve or deny:\n\n  %s\n\n", aal.Visible(req.URL))
	if !req.Expires.IsZero() {
		fmt.Fprintf(w, "Nothing is done until you approve there. The page expires at %s.\n", clock(req.Expires))
	}
	// Not waiting, the client still checks the page once: the person may
	// have approved it for an earlier run of the same call.
	return true
}

// waiting is the client's OnApprovalWait: on a terminal one line,
// rewritten at each check; otherwise a line at most every 10 seconds.
func (a *approval) waiting(_ *agent.ApprovalRequest, waited time.Duration) {
	if !a.wait {
		return
	}
	line := "waiting for your decision on the approval page… " + waited.Round(time.Second).String()
	if a.e.stderrTerminal() {
		fmt.Fprintf(a.e.stderr, "\r%s\033[K", line)
		a.open = true
		return
	}
	if a.shown && waited-a.lastShow < 10*time.Second {
		return
	}
	a.shown, a.lastShow = true, waited
	fmt.Fprintln(a.e.stderr, line)
}

// endWait ends the terminal's progress line, before the outcome.
func (a *approval) endWait() {
	if a.open {
		fmt.Fprintln(a.e.stderr)
		a.open = false
	}
}

// noPerson says nobody could be asked: no --approve and no terminal.
func (a *approval) noPerson() bool { return !a.approve && !a.e.terminal() }

// clock is t as the approval messages print it, in UTC.
func clock(t time.Time) string { return t.UTC().Format("15:04:05 UTC") }

// runCall calls action on page and prints the outcome.
func runCall(ctx context.Context, e *env, f *agentFlags, page *agent.Page, action string, input json.RawMessage, ap *approval) error {
	verdict := page.Assess(action)
	var in any // nil: no input; a nil json.RawMessage would be sent as null
	if input != nil {
		in = input
	}
	delta, err := page.Call(ctx, action, in)
	ap.endWait()
	var onPage *approvalPageJSON // the approval page, when the site had one
	if ap.asked != nil && ap.asked.URL != "" {
		onPage = &approvalPageJSON{URL: ap.asked.URL, Expires: ap.asked.Expires}
	}
	var de *affordances.Error
	switch {
	case errors.Is(err, agent.ErrRefused):
		return reportRefused(e, f.json, page.Graph.Page, action, "nothing was sent", verdict)
	case onPage != nil && errors.Is(err, agent.ErrApprovalTimeout):
		onPage.Outcome = "timeout"
		if !ap.wait {
			onPage.Outcome = "pending"
		}
		return reportNotApproved(e, f, ap, onPage)
	case errors.Is(err, agent.ErrNotApproved):
		if onPage != nil {
			onPage.Outcome = "denied"
			if ap.unattended {
				onPage.Outcome = "pending"
			}
		}
		return reportNotApproved(e, f, ap, onPage)
	case onPage != nil && err != nil && !errors.As(err, &de) && delta != nil && !delta.OK:
		// Waiting failed (the page could not be checked): confirm: true
		// was not sent; the delta is the first answer, confirm_required.
		fmt.Fprintln(e.stderr, "Checking the approval page failed; nothing was done.")
		return reportSiteError(e, f.json, err)
	case onPage != nil:
		// The person approved on the page; the call went with confirm: true.
		onPage.Outcome = "approved"
		fmt.Fprintln(e.stderr, "Approved on the approval page: the call was sent with confirm: true.")
	}
	switch {
	case delta != nil && delta.OK && err != nil:
		// The call ran; only reloading the page after it failed.
		fmt.Fprintf(e.stderr, "affordances call: the call succeeded, then reloading the page failed: %v\n", err)
	case delta != nil && !delta.OK:
		if werr := printDelta(e, f.json, delta, onPage); werr != nil {
			return werr
		}
		return errFailed
	case err != nil:
		return reportSiteError(e, f.json, err)
	}
	return printDelta(e, f.json, delta, onPage)
}

// readInput reads a call's input: JSON text, @FILE, or - for stdin.
func readInput(e *env, arg string) (json.RawMessage, error) {
	var b []byte
	var err error
	where := "the input"
	switch {
	case arg == "-":
		b, err = io.ReadAll(io.LimitReader(e.input(), 8<<20))
		where = "standard input"
	case strings.HasPrefix(arg, "@"):
		b, err = os.ReadFile(arg[1:])
		where = arg[1:]
	default:
		b = []byte(arg)
	}
	if err != nil {
		return nil, usagef("reading %s: %v", where, err)
	}
	b = bytes.TrimSpace(b)
	var v any
	if err := json.Unmarshal(b, &v); err != nil {
		return nil, usagef("%s is not JSON (%v); write an object such as '{\"sku\":\"TOTE-NAT\"}'", where, err)
	}
	return json.RawMessage(b), nil
}

// describeApproval writes what a person is asked to approve. The label,
// the message and the reasons have passed through aal.Visible in the
// client.
func describeApproval(w io.Writer, req *agent.ApprovalRequest) {
	fmt.Fprintf(w, "%s on %s%s needs a person's approval:\n", aal.Visible(req.Action), aal.Visible(req.Origin), aal.Visible(req.Page))
	fmt.Fprintf(w, "  action:    %s\n", aal.Visible(req.Action))
	if req.Label != "" {
		fmt.Fprintf(w, "  label:     %s\n", req.Label)
	}
	if len(req.Classes) > 0 {
		fmt.Fprintf(w, "  classes:   %s\n", classText(req.Classes))
	}
	if req.Amount != nil {
		fmt.Fprintf(w, "  amount:    %s\n", costText(req.Amount))
	}
	if req.Message != "" {
		fmt.Fprintf(w, "  site says: %s\n", req.Message)
	}
	input := "none"
	if req.Input != nil {
		input = display.JSON(req.Input)
	}
	fmt.Fprintf(w, "  input:     %s\n", input)
	for i, r := range req.Reasons {
		head := "  why:       "
		if i > 0 {
			head = "             "
		}
		fmt.Fprintln(w, head+r)
	}
}

// askApproval shows req on w and reads the person's answer, one line, from
// r: only y or yes approves.
func askApproval(r io.Reader, w io.Writer, req *agent.ApprovalRequest) (bool, error) {
	describeApproval(w, req)
	fmt.Fprint(w, "Approve? [y/N] ")
	line, err := readLine(r)
	if err != nil && line == "" {
		fmt.Fprintln(w)
		return false, nil // end of input is no
	}
	answer := strings.ToLower(strings.TrimSpace(line))
	return answer == "y" || answer == "yes", nil
}

// readLine reads up to a newline, one byte at a time so nothing after the
// line is consumed.
func readLine(r io.Reader) (string, error) {
	var b []byte
	one := make([]byte, 1)
	for len(b) < 1024 {
		n, err := r.Read(one)
		if n == 1 {
			if one[0] == '\n' {
				return string(b), nil
			}
			b = append(b, one[0])
		}
		if err != nil {
			return string(b), err
		}
	}
	return string(b), nil
}

// An approvalJSON is an [agent.ApprovalRequest] as --json prints it.
type approvalJSON struct {
	Origin  string          `json:"origin"`
	Page    string          `json:"page"`
	Action  string          `json:"action"`
	Label   string          `json:"label,omitempty"`
	Input   json.RawMessage `json:"input,omitempty"`
	Classes []aal.Class     `json:"classes"`
	Amount  *aal.Cost       `json:"amount,omitempty"`
	Message string          `json:"message,omitempty"`
	Reasons []string        `json:"reasons,omitempty"`
}

// An approvalPageJSON is a site's approval page as --json prints it: where
// the person decides, until when, and what came of it (approved, denied,
// timeout, or pending when the call did not wait).
type approvalPageJSON struct {
	URL     string    `json:"url"`
	Expires time.Time `json:"expires,omitzero"`
	Outcome string    `json:"outcome"`
}

const approveHint = "Nothing was done. If the person approves this very call, run it again with --approve: " +
	"the person's explicit approval of this one call; never give it on a model's behalf."

// pageHint says, for a call the site has the person approve on its
// approval page, why nothing was done and what may be done next.
func pageHint(p *approvalPageJSON, timeout time.Duration, unattended bool) string {
	until, open := "", ""
	if !p.Expires.IsZero() {
		until, open = " until "+clock(p.Expires), " (open until "+clock(p.Expires)+")"
	}
	switch p.Outcome {
	case "denied":
		return "Nothing was done: the person denied this call on the approval page."
	case "timeout":
		if timeout > 0 && time.Now().Before(p.Expires) {
			return "Nothing was done: nobody decided on the approval page within " + timeout.String() + ". The page stays open" + until +
				"; once the person approves there, run the same call again to send it."
		}
		return "Nothing was done: nobody decided on the approval page before it expired. Run the call again for a new one."
	}
	if !unattended {
		return "Nothing was done yet: no terminal, so the call did not wait for the person's decision on the approval page" + open +
			". Once they approve there, run the same call again to send it; or run it with --approval-timeout 10m to wait for them."
	}
	return "Nothing was done. The person approves or denies on the approval page, in their browser" + open +
		"; --approve and --grant do not approve it. Run the call without --unattended to wait for their decision."
}

// reportNotApproved prints what needed approval and returns errNotApproved
// (exit 3), or errPending (exit 5) when the approval page awaits the
// person's decision. onPage, when set, is the site's approval page and the
// outcome there.
func reportNotApproved(e *env, f *agentFlags, ap *approval, onPage *approvalPageJSON) error {
	req := ap.asked
	if req == nil { // cannot happen: the call has an approver
		fmt.Fprintln(e.stderr, "affordances call: the call needs a person's approval")
		return errNotApproved
	}
	end := errNotApproved
	if onPage != nil && onPage.Outcome == "pending" {
		end = errPending
	}
	hint := approveHint
	if onPage != nil {
		hint = pageHint(onPage, f.approvalTimeout, f.unattended)
	}
	if f.json {
		classes := req.Classes
		if classes == nil {
			classes = []aal.Class{}
		}
		asked := !ap.noPerson()
		if onPage != nil {
			asked = onPage.Outcome != "pending" // the person was sent to the page
		}
		out := struct {
			Approved     bool              `json:"approved"`
			Asked        bool              `json:"asked"`
			Approval     approvalJSON      `json:"approval"`
			ApprovalPage *approvalPageJSON `json:"approvalPage,omitempty"`
			Hint         string            `json:"hint"`
		}{false, asked, approvalJSON{req.Origin, req.Page, req.Action, req.Label, req.Input, classes, req.Amount, req.Message, req.Reasons}, onPage, hint}
		if err := writeJSON(e.stdout, out); err != nil {
			return err
		}
		return end
	}
	switch {
	case onPage != nil && onPage.Outcome == "denied":
		fmt.Fprintln(e.stderr, "Denied on the approval page: nothing was done.")
	case onPage != nil:
		fmt.Fprintln(e.stderr, hint)
	case ap.noPerson():
		describeApproval(e.stderr, req)
		fmt.Fprintln(e.stderr, "No terminal to ask on. "+hint)
	default:
		fmt.Fprintln(e.stderr, "Not approved: nothing was done.")
	}
	return end
}

// reportRefused prints why the gate refused the action on the page (a
// v0 action, or an AAL affordance: what was not done says which) and
// returns errNotApproved (exit 3).
func reportRefused(e *env, asJSON bool, page, action, notDone string, v aal.Verdict) error {
	if asJSON {
		out := struct {
			Refused bool        `json:"refused"`
			Action  string      `json:"action"`
			Page    string      `json:"page"`
			Verdict verdictJSON `json:"verdict"`
		}{true, action, page, toVerdictJSON(v)}
		if err := writeJSON(e.stdout, out); err != nil {
			return err
		}
		return errNotApproved
	}
	fmt.Fprintf(e.stderr, "The gate refused %s on %s; %s.\n", aal.Visible(action), aal.Visible(page), notDone)
	if len(v.Classes) > 0 {
		fmt.Fprintf(e.stderr, "  classes:   %s\n", classText(v.Classes))
	}
	for i, r := range v.Reasons {
		head := "  why:       "
		if i > 0 {
			head = "             "
		}
		fmt.Fprintln(e.stderr, head+r)
	}
	return errNotApproved
}

// printDelta prints a delta on stdout, for a person or as JSON; as JSON
// with onPage, the approval page the person decided on, beside the
// delta's own fields.
func printDelta(e *env, asJSON bool, d *affordances.Delta, onPage *approvalPageJSON) error {
	if asJSON && onPage != nil {
		return writeJSON(e.stdout, struct {
			*affordances.Delta
			ApprovalPage *approvalPageJSON `json:"approvalPage"`
		}{d, onPage})
	}
	if asJSON {
		return writeJSON(e.stdout, d)
	}
	writeDelta(e.stdout, d)
	return nil
}

// writeDelta writes a delta for a person: ok or the error, then one line
// for each thing it says.
func writeDelta(w io.Writer, d *affordances.Delta) {
	if d.OK {
		fmt.Fprintln(w, "ok")
	} else if d.Error != nil {
		fmt.Fprintf(w, "error %s: %s\n", aal.Visible(string(d.Error.Code)), aal.Visible(d.Error.Message))
		for _, is := range d.Error.Issues {
			fmt.Fprintf(w, "issue:    %s: %s\n", pointer(is.Path), aal.Visible(is.Message))
		}
	}
	for _, k := range sortedKeys(d.Changed) {
		v := d.Changed[k]
		text := display.JSON(v)
		if v == nil {
			text = "null (gone)"
		}
		fmt.Fprintln(w, cut("changed:  "+aal.Visible(k)+" = "+text, width))
	}
	if d.Output != nil {
		fmt.Fprintln(w, cut("output:   "+display.JSON(d.Output), width))
	}
	for _, a := range d.ActionsAdded {
		state := "available"
		if !a.Available {
			state = "not available"
			if a.Reason != "" {
				state += ": " + aal.Visible(a.Reason)
			}
		}
		fmt.Fprintf(w, "added:    %s (%s, %s)\n", aal.Visible(a.Name), aal.Visible(string(a.Expose)), state)
	}
	for _, name := range d.ActionsRemoved {
		fmt.Fprintf(w, "removed:  %s\n", aal.Visible(name))
	}
	if d.Redirect != "" {
		fmt.Fprintf(w, "redirect: %s\n", aal.Visible(d.Redirect))
	}
	if d.Message != "" {
		fmt.Fprintf(w, "message:  %s\n", aal.Visible(d.Message))
	}
}
