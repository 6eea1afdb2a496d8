package wirecheck

import (
	"errors"
	"strings"
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
// ApprovalsPath, after a site's path prefix (docs/protocol.md decisions 10 and 13),
// with an id of a URL's unreserved characters (any site's: a UUID, or
// store.NewApprovalID's lowercase base32) and nothing after: no
// more a client's credentials should not follow, and nothing that could
// write on the line a client shows it on (issue 36).
func TestApprovalPage(t *testing.T) {
	const id = "abcdefghijklmnopqrstuvwxyz" // 26 of store.NewApprovalID's characters
	for path, want := range map[string]bool{
		"/.well-known/affordances/approvals/" + id:                                                    true,
		"/.well-known/affordances/approvals/234567abcdefghijklmnopqrst":                               true,
		"/app/.well-known/affordances/approvals/" + id:                                                true,
		"/a-b/c_d.e~f/.well-known/affordances/approvals/" + id:                                        true,
		"/sh%C3%B6p/.well-known/affordances/approvals/" + id:                                          true,
		"/.well-known/affordances/approvals/":                                                         false,
		"/.well-known/affordances/approvals/abc":                                                      true,
		"/.well-known/affordances/approvals/0b5e3c4a-9d1e-4f6a-8b7c-2d3e4f5a6b7c":                     true,
		"/.well-known/affordances/approvals/ABC_def~1.2":                                              true,
		"/.well-known/affordances/approvals/" + strings.Repeat("a", 129):                              false,
		"/.well-known/affordances/approvals/.":                                                        false,
		"/.well-known/affordances/approvals/..":                                                       false,
		"/.well-known/affordances/approvals/.x":                                                       false,
		"/.well-known/affordances/approvals/a%20b":                                                    false,
		"/.well-known/affordances/approvals/a b":                                                      false,
		"/.well-known/affordances/approvals/a,b":                                                      false,
		"/.well-known/affordances/approvals/" + id + "  state approved  expires 2099-01-01T00:00:00Z": false,
		"/.well-known/affordances/approvals/" + id + "/":                                              false,
		"/.well-known/affordances/approvals/" + id + "\n":                                             false,
		"/a  state approved/.well-known/affordances/approvals/" + id:                                  false,
		"/a\"b/.well-known/affordances/approvals/" + id:                                               false,
		"/sh%zz/.well-known/affordances/approvals/" + id:                                              false,
		"https://evil.example/.well-known/affordances/approvals/" + id:                                false,
		"//evil.example/.well-known/affordances/approvals/" + id:                                      false,
		"/.well-known/affordances/approvals/" + id + "?y":                                             false,
		"/.well-known/affordances/approvals/" + id + "#y":                                             false,
		"/.well-known/affordances/approvals/../../" + id:                                              false,
		"/x/../.well-known/affordances/approvals/" + id:                                               false,
		"/x/./.well-known/affordances/approvals/" + id:                                                false,
		"/a\\b/.well-known/affordances/approvals/" + id:                                               false,
		"/x/.well-known/y/.well-known/affordances/approvals/" + id:                                    false,
		"app/.well-known/affordances/approvals/" + id:                                                 false,
		"/approvals/" + id: false,
	} {
		if got := ApprovalPage(path); got != want {
			t.Errorf("ApprovalPage(%q) = %v, want %v", path, got, want)
		}
	}
}
