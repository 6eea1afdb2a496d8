package modeltext_test

import (
	"fmt"
	"strings"
	"testing"

	affordances "github.com/affordances/affordances-go"
	"github.com/affordances/affordances-go/internal/modeltext"
)

// tasks returns n task records, as a board lists them.
func tasks(n int) []map[string]any {
	out := make([]map[string]any, n)
	for i := range out {
		out[i] = map[string]any{"id": i + 1, "title": fmt.Sprintf("Task number %d, with a title of some words", i+1), "status": "todo", "assignee": "alice@example.com"}
	}
	return out
}

// TestDeltaSince: a call's changed entities are written as what changed
// since the model was shown them: a removed row by its key, an added row
// whole, a changed row by its key and the cells that changed, an object's
// changed fields; an entity the model was not shown, whole. Everything
// the delta holds that the model had not read is in the text.
func TestDeltaSince(t *testing.T) {
	before := tasks(5)
	after := tasks(5)
	after = append(after[:2], after[3:]...) // task 3 deleted
	after[0]["status"] = "done"            // task 1 moved by someone else
	after = append(after, map[string]any{"id": 9, "title": "A new one", "status": "todo", "assignee": "bob@example.com"})
	d := &affordances.Delta{OK: true, Changed: map[string]any{
		"tasks":   after,
		"board":   map[string]any{"name": "Launch", "open": 5, "done": 1},
		"members": []string{"alice", "bob"},
	}, Redirect: "/boards/launch"}
	shown := map[string]any{"tasks": before, "board": map[string]any{"name": "Launch", "open": 5, "done": 0}}
	got := modeltext.DeltaSince(d, shown)
	want := `ok
changed:
  board.done: 1
  members: [alice, bob]
  tasks (5 rows, by id): removed 3
  tasks added (1): assignee | id | status | title
    bob@example.com | 9 | todo | A new one
  tasks changed (1): id | status
    1 | done
redirect: /boards/launch
`
	if got != want {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}
	if full := modeltext.Delta(d); len(got) >= len(full) {
		t.Errorf("the change is %d bytes, the whole %d", len(got), len(full))
	}
}

// TestDeltaSinceWhole: what a change cannot say shorter is written whole:
// rows that moved, an entity unchanged says so, a table without a key.
func TestDeltaSinceWhole(t *testing.T) {
	moved := tasks(3)
	moved[0], moved[2] = moved[2], moved[0]
	for _, tc := range []struct {
		name        string
		shown, now  any
		has, hasNot string
	}{
		{"rows moved", tasks(3), moved, "tasks (3): assignee | id | status | title\n", "by id"},
		{"unchanged", tasks(3), tasks(3), "tasks: unchanged\n", "|"},
		{"no key", []map[string]any{{"a": 1}, {"a": 1}}, []map[string]any{{"a": 1}}, "tasks (1): a\n", "by"},
		{"not shown", nil, tasks(1), "tasks (1): assignee", "by id"},
	} {
		shown := map[string]any{}
		if tc.shown != nil {
			shown["tasks"] = tc.shown
		}
		got := modeltext.DeltaSince(&affordances.Delta{OK: true, Changed: map[string]any{"tasks": tc.now}}, shown)
		if !strings.Contains(got, tc.has) || strings.Contains(got, tc.hasNot) {
			t.Errorf("%s: got\n%s\nwant %q and not %q", tc.name, got, tc.has, tc.hasNot)
		}
	}
}

// TestDeltaSinceOneOfMany: deleting one task of a page of 25 is written in
// under a tenth of the page's text (issue 39: the delta sent the page of
// tasks again, and the model read it whole twice).
func TestDeltaSinceOneOfMany(t *testing.T) {
	before := tasks(25)
	page := modeltext.Graph(&affordances.Graph{Page: "/boards/launch", Entities: map[string]any{"tasks": before}}, nil)
	after := append(tasks(25)[:11], tasks(25)[12:]...)
	got := modeltext.DeltaSince(&affordances.Delta{OK: true, Changed: map[string]any{"tasks": after}}, map[string]any{"tasks": before})
	if len(got)*10 >= len(page) {
		t.Errorf("the delta is %d bytes, the page %d: want under a tenth\n%s", len(got), len(page), got)
	}
	if !strings.Contains(got, "removed 12") {
		t.Errorf("got %s, want task 12 removed", got)
	}
}
