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
