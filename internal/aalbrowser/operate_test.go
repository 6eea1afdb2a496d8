package aalbrowser_test

import (
	"context"
	"errors"
	"net/http/httptest"
	"net/url"
	"reflect"
	"strings"
	"testing"

	"github.com/affordances/affordances-go/aal"
	"github.com/affordances/affordances-go/agent"
	"github.com/affordances/affordances-go/examples/plain"
	"github.com/affordances/affordances-go/internal/aalbrowser"
	"github.com/affordances/affordances-go/internal/browsertest"
)

func startPlain(t *testing.T) (*plain.Site, string) {
	t.Helper()
	s := plain.New(nil)
	srv := httptest.NewServer(s.Handler())
	t.Cleanup(srv.Close)
	return s, srv.URL
}

// approver records what it is asked and answers yes or no.
type approver struct {
	yes   bool
	asked []*agent.ApprovalRequest
}

func (a *approver) Approve(_ context.Context, r *agent.ApprovalRequest) (bool, error) {
	a.asked = append(a.asked, r)
	return a.yes, nil
}

// TestExecute: in real Chromium, a form affordance of the plain site is
// filled from the input (by name and by label) and clicked, and the site
// receives exactly that form; the next page and its affordances come
// back. A destructive, irreversible delete is asked of the person first
// (docs/protocol.md decision 8) and, without their yes, nothing is posted; with it,
// the note their input picks (docs/protocol.md decision 11) is deleted. A field the
// form lacks, or a required field left empty, fails before anything is
// clicked.
func TestExecute(t *testing.T) {
	b := browsertest.Start(t)
	s, base := startPlain(t)
	ctx := t.Context()
	op := &aalbrowser.Operator{Browser: b, Origin: base}

	r, err := op.Execute(ctx, base+"/notes", "add-note", map[string]any{"title": "Tea", "Note": "Green, at four."})
	if err != nil {
		t.Fatal(err)
	}
	want := []plain.Submission{{Method: "POST", Path: "/notes", Form: url.Values{"title": {"Tea"}, "body": {"Green, at four."}}}}
	if got := s.Received(); !reflect.DeepEqual(got, want) {
		t.Errorf("the site received %+v, want %+v", got, want)
	}
	if r.Status != 200 || r.Next.URL != base+"/notes" || r.Next.Title != "Notes - Corner Notes" || !reflect.DeepEqual(r.Next.IDs(), []string{"add-note", "delete-note"}) ||
		!strings.Contains(r.Next.Summary, "Tea Green, at four. by anonymous") || r.Verdict.Decision != aal.Allow || r.Approved ||
		!reflect.DeepEqual(r.Did, []string{"fill Note", "fill title", "click add-note"}) || r.Method != "POST" || r.Sent != base+"/notes" {
		t.Errorf("the result: %+v; next %+v", r, r.Next)
	}

	for _, tc := range []struct {
		name  string
		input map[string]any
		want  string
	}{
		{"no such field", map[string]any{"title": "X", "body": "Y", "colour": "red"}, "the form has no field colour (its fields: title, body)"},
		{"required left empty", map[string]any{"title": "X"}, `the form is not ready to send: body ("note") is required and left empty; nothing was clicked`},
		{"longer than its maxlength", map[string]any{"title": strings.Repeat("x", 81), "body": "Y"}, `title ("title"): takes at most 80 characters, not 81; nothing was clicked`},
		{"one field twice, by name and by label", map[string]any{"title": "X", "body": "Y", "Title": "Z"}, `Title and title both name the field title`},
	} {
		if _, err := op.Execute(ctx, base+"/notes", "add-note", tc.input); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: %v, want %q", tc.name, err, tc.want)
		}
	}
	if got := len(s.Received()); got != 1 {
		t.Errorf("after the refused inputs the site received %d forms, want still 1", got)
	}

	// The destructive delete: asked, no, nothing posted.
	no := &approver{}
	op.Approver = no
	_, err = op.Execute(ctx, base+"/notes", "delete-note", map[string]any{"id": "n-2"})
	if !errors.Is(err, agent.ErrNotApproved) || len(no.asked) != 1 {
		t.Fatalf("delete-note, the person says no: %v, asked %d times; want ErrNotApproved after one question", err, len(no.asked))
	}
	if q := no.asked[0]; q.Action != "delete-note" || q.Label != "Delete note" || !reflect.DeepEqual(q.Classes, []aal.Class{aal.ClassDestructive}) || string(q.Input) != `{"id":"n-2"}` || q.Page != "/notes" || q.Origin != base {
		t.Errorf("the question: %+v", q)
	}
	op.Approver = nil
	if _, err := op.Execute(ctx, base+"/notes", "delete-note", map[string]any{"id": "n-2"}); !errors.Is(err, agent.ErrNotApproved) {
		t.Errorf("delete-note with nobody to ask: %v, want ErrNotApproved", err)
	}
	op.Gate = &aal.Gate{Unattended: true}
	if _, err := op.Execute(ctx, base+"/notes", "delete-note", map[string]any{"id": "n-2"}); !errors.Is(err, agent.ErrRefused) {
		t.Errorf("delete-note unattended: %v, want ErrRefused", err)
	}
	if got := len(s.Received()); got != 1 || len(s.Notes()) != 3 {
		t.Errorf("after the refused deletes: %d forms, %d notes; want 1 and 3", got, len(s.Notes()))
	}

	// Yes: the note the input picks, and only it.
	op.Gate, op.Approver = nil, &approver{yes: true}
	r, err = op.Execute(ctx, base+"/notes", "delete-note", map[string]any{"id": "n-2"})
	if err != nil {
		t.Fatal(err)
	}
	if got := s.Received(); len(got) != 2 || !reflect.DeepEqual(got[1].Form, url.Values{"id": {"n-2"}}) || !r.Approved {
		t.Errorf("after the approved delete: %+v, approved %v", got, r.Approved)
	}
	var titles []string
	for _, n := range s.Notes() {
		titles = append(titles, n.Title)
	}
	if !reflect.DeepEqual(titles, []string{"Welcome", "Tea"}) {
		t.Errorf("the notes: %q, want Welcome and Tea", titles)
	}
}
