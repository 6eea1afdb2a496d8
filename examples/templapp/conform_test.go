package templapp_test

import (
	"net/http/httptest"
	"testing"

	"github.com/affordances/affordances-go/conformance"
	"github.com/affordances/affordances-go/examples/templapp"
)

// TestConforms: the templ app passes every must of the conformance suite,
// its writes run (a public action: the notes are anyone's), as every demo
// of ours does.
func TestConforms(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: runs the conformance suite")
	}
	srv := httptest.NewServer(templapp.New(""))
	t.Cleanup(srv.Close)
	rep := conformance.Run(t.Context(), srv.URL, &conformance.Options{AllowWrites: true})
	if !rep.Passed() || len(rep.Pages) < 2 {
		t.Errorf("%d pages %q; must failed: %+v", len(rep.Pages), rep.Pages, rep.Failed(conformance.Must))
	}
	for _, c := range rep.Failed(conformance.Should) {
		t.Errorf("should failed: %s: %s", c.ID, c.Reason)
	}
}
