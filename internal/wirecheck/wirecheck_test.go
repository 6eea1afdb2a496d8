package wirecheck

import (
	"errors"
	"testing"

	"github.com/affordances/affordances-go/schemas"
)

// TestHugeNumbersDoNotCrash: a hostile document with a number beyond any
// float64 is a problem, never a panic.
func TestHugeNumbersDoNotCrash(t *testing.T) {
	doc := `{"v":"0","page":"/","route":"/","entities":{},"actions":[{"name":"a","description":"d","input":{"type":"object","properties":{"n":{"minimum":1e99999999}}},"expose":"public","available":true}]}`
	err := Validate(schemas.Graph, []byte(doc))
	var ve *ValidationError
	if err != nil && !errors.As(err, &ve) {
		t.Fatalf("got %v, want nil or a ValidationError", err)
	}
	if err := Validate(schemas.Delta, []byte(`{"ok":1e99999999}`)); err == nil {
		t.Error("ok as a huge number: got valid, want a problem")
	}
}

// TestApprovalPage: an approval's URL is a path of the site under
// ApprovalsPath, after a site's path prefix (CLARIFICATIONS 10 and 13),
// and nothing a client's credentials should not follow.
func TestApprovalPage(t *testing.T) {
	for path, want := range map[string]bool{
		"/.well-known/affordances/approvals/abc":                   true,
		"/app/.well-known/affordances/approvals/abc":               true,
		"/.well-known/affordances/approvals/":                      false,
		"https://evil.example/.well-known/affordances/approvals/x": false,
		"//evil.example/.well-known/affordances/approvals/x":       false,
		"/.well-known/affordances/approvals/x?y":                   false,
		"/.well-known/affordances/approvals/../../x":               false,
		"/a\\b/.well-known/affordances/approvals/x":                false,
		"/x/.well-known/y/.well-known/affordances/approvals/x":     false,
		"app/.well-known/affordances/approvals/x":                  false,
		"/approvals/x": false,
	} {
		if got := ApprovalPage(path); got != want {
			t.Errorf("ApprovalPage(%q) = %v, want %v", path, got, want)
		}
	}
}
