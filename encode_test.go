package affordances

import (
	"encoding/json"
	"math"
	"testing"
	"time"
)

// TestEncodeDeltaMatchesMarshal: every field of a Delta, present and
// omitted, comes out as json.Marshal writes it, and so does a call's
// changed written from its entities (changeSet), gone keys as null.
func TestEncodeDeltaMatchesMarshal(t *testing.T) {
	descriptor := ActionDescriptor{ActionSummary: ActionSummary{Name: "a", Description: "<d>", Input: json.RawMessage(`{"type":"object"}`), Expose: ExposePublic}, Reason: "r"}
	for _, d := range []Delta{
		{},
		{OK: true},
		{OK: true, Changed: map[string]any{}, Output: struct{}{}},
		{OK: true, Changed: map[string]any{"cart": map[string]int{"n": 2}, "gone": nil}, Output: map[string]any{"id": "o-1"},
			ActionsAdded: []ActionDescriptor{descriptor}, ActionsRemoved: []string{"x", "<y>"}, Redirect: "/?q=a&b", Message: "Done \u2028"},
		{Error: &Error{Code: InvalidInput, Message: "The input does not match the schema.", Issues: []Issue{{Path: "/sku", Message: "<missing>"}}}},
		{Error: NewError(ConfirmRequired, "Place the order?"), Approval: &PendingApproval{URL: ApprovalsPath + "x", Expires: time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)}},
	} {
		want, err := json.Marshal(d)
		if err != nil {
			t.Fatal(err)
		}
		got, err := encodeDelta(nil, &d, changeSet{})
		if err != nil || string(got) != string(want) {
			t.Errorf("encodeDelta:\n got %s, %v\nwant %s", got, err, want)
		}
	}
	// A call's changed, read from its entities: as the map of its keys.
	in := map[string]any{"cart": map[string]int{"n": 2}, "other": "<x>", "user": struct{ Name string }{"Ada"}}
	for _, keys := range [][]string{{"cart"}, {"cart", "gone", "user"}, {"a&b", "cart"}} {
		d := Delta{OK: true, Changed: map[string]any{}, Message: "m"}
		for _, k := range keys {
			d.Changed[k] = in[k]
		}
		want, _ := json.Marshal(d)
		d.Changed = nil
		if got, err := encodeDelta(nil, &d, changeSet{keys, in}); err != nil || string(got) != string(want) {
			t.Errorf("encodeDelta of changed %v:\n got %s, %v\nwant %s", keys, got, err, want)
		}
	}
	if _, err := encodeDelta(nil, &Delta{OK: true, Output: math.Inf(1)}, changeSet{}); err == nil {
		t.Error("encodeDelta of an output json.Marshal refuses: no error")
	}
}
