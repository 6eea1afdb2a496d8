package modeltext_test

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	affordances "github.com/affordances/affordances-go"
	"github.com/affordances/affordances-go/internal/modeltext"
	"github.com/tiktoken-go/tokenizer"
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
	after[0]["status"] = "done"             // task 1 moved by someone else
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

// TestDeltaSinceWhole: rows that moved are written by their keys in their
// new order; an entity unchanged says so; a table without a key, or one
// the model was not shown, is written whole.
func TestDeltaSinceWhole(t *testing.T) {
	moved := tasks(3)
	moved[0], moved[2] = moved[2], moved[0]
	for _, tc := range []struct {
		name        string
		shown, now  any
		has, hasNot string
	}{
		{"rows moved", tasks(25), append(tasks(25)[24:], tasks(25)[:24]...), "tasks (25 rows, by id)\n  tasks order: 25, 1, 2, 3,", "title"},
		{"two rows swapped", tasks(3), moved, "tasks (3 rows, by id)\n  tasks order: 3, 2, 1\n", "title"},
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

// TestGraphWithin: a page whose text would pass the budget shows its
// largest table by its first rows, and says how many more there are and
// the ways to them (show, its other pages, its read-only actions that
// take an input); under the budget, or with the table asked for whole,
// it is the page's whole text.
func TestGraphWithin(t *testing.T) {
	enc, err := tokenizer.Get(tokenizer.O200kBase)
	if err != nil {
		t.Fatal(err)
	}
	count := func(s string) int {
		ids, _, _ := enc.Encode(s)
		return len(ids)
	}
	rows := tasks(40)
	g := &affordances.Graph{Page: "/boards/launch", Entities: map[string]any{"tasks": rows, "board": map[string]any{"name": "Launch"}},
		Actions: []affordances.ActionDescriptor{{ActionSummary: affordances.ActionSummary{Name: "search", ReadOnly: true, Expose: affordances.ExposePublic,
			Input: json.RawMessage(`{"type":"object","properties":{"q":{"type":"string"}},"required":["q"]}`)}, Available: true}},
		Nav: []affordances.NavLink{{To: "/boards", Label: "All boards"}, {To: "/boards/launch?page=2", Label: "Next tasks"}}}
	whole := modeltext.Graph(g, nil)
	text, cut := modeltext.GraphWithin(g, nil, modeltext.Budget{Tokens: 500, Count: count})
	if count(text) > 500 || len(cut) != 1 || cut[0] != "tasks" {
		t.Errorf("%d tokens (the whole: %d), cut %q:\n%s", count(text), count(whole), cut, text)
	}
	var shown int
	if _, err := fmt.Sscanf(text[strings.Index(text, "tasks (40, first "):], "tasks (40, first %d shown)", &shown); err != nil || shown < 3 || shown >= 40 {
		t.Fatalf("no cut table in\n%s", text)
	}
	if want := fmt.Sprintf("    … %d more not shown: show tasks; pages: /boards/launch?page=2; find: search\n", 40-shown); !strings.Contains(text, want) {
		t.Errorf("want %q in\n%s", want, text)
	}
	if !strings.Contains(text, "board: {name: Launch}") || !strings.Contains(text, "search(q: string)") {
		t.Errorf("the rest of the page is missing:\n%s", text)
	}
	if text, cut := modeltext.GraphWithin(g, nil, modeltext.Budget{Tokens: 500, Count: count, Whole: "tasks"}); text != whole || cut != nil {
		t.Errorf("tasks asked whole: got\n%s", text)
	}
	if text, _ := modeltext.GraphWithin(g, nil, modeltext.Budget{Tokens: 1 << 20, Count: count}); text != whole {
		t.Errorf("under the budget: got\n%s", text)
	}
}
