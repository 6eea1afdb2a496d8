package bench_test

import (
	"context"
	"slices"
	"testing"

	"github.com/affordances/affordances-go/bench"
)

// TestTasks: the fixtures cover what the issue asks (30 tasks, at least
// 12 a site, refusals and a person's no), their plans are well formed,
// and every check can fail: on a fresh demo of each size, a task that
// changes something fails its check and one that must change nothing
// passes it (under -short, on the shop alone: the board runs as a
// process).
func TestTasks(t *testing.T) {
	tasks := bench.Tasks()
	if len(tasks) != 30 {
		t.Errorf("got %d tasks, want 30", len(tasks))
	}
	perSite, stops, ids := map[string]int{}, 0, map[string]bool{}
	for _, task := range tasks {
		if ids[task.ID] {
			t.Errorf("%s: the id is taken", task.ID)
		}
		ids[task.ID] = true
		perSite[task.Site]++
		if task.Goal == "" || task.Start == "" || task.Check == nil {
			t.Errorf("%s: a task needs a goal, a start page and a check", task.ID)
		}
		for i, s := range task.Plan {
			if (s.Outcome == bench.NeedsPerson || s.Outcome == bench.Refused) && i != len(task.Plan)-1 {
				t.Errorf("%s: step %d is %s, so it must be the last", task.ID, i+1, s.Outcome)
			}
		}
		if n := len(task.Plan); n > 0 && slices.Contains([]bench.Outcome{bench.NeedsPerson, bench.Refused}, task.Plan[n-1].Outcome) {
			stops++
		}
	}
	for _, site := range bench.Sites() {
		if perSite[site] < 12 {
			t.Errorf("%s: got %d tasks, want at least 12", site, perSite[site])
		}
	}
	if stops < 3 {
		t.Errorf("got %d tasks refused or waiting for a person, want at least 3", stops)
	}

	ctx := context.Background()
	for _, size := range bench.Sizes() {
		for _, task := range tasks {
			t.Run(string(size)+"/"+task.ID, func(t *testing.T) {
				if testing.Short() && task.Site == "board" {
					t.Skip("-short: no board process (make check runs it)")
				}
				// A check reads the database: only signing out needs the session
				// it ends (a sign-in hashes a password, slow under -race).
				as := ""
				if slices.ContainsFunc(task.Plan, func(s bench.Step) bool { return s.Action == "signOut" }) {
					as = task.As
				}
				d, stop, err := bench.StartDemo(ctx, task.Site, size, as)
				if err != nil {
					t.Fatal(err)
				}
				defer stop()
				err = task.Check(ctx, d)
				if changes(task) && err == nil {
					t.Errorf("the check passes on a fresh demo, before anything ran")
				}
				if !changes(task) && err != nil {
					t.Errorf("the check fails on a fresh demo: %v", err)
				}
			})
		}
	}
}

// changes says whether a task's goal changes the site's data: some step
// is done, and it is no search.
func changes(t *bench.Task) bool {
	for _, s := range t.Plan {
		if (s.Outcome == bench.Done || s.Outcome == bench.Confirmed) && s.Action != "search" {
			return true
		}
	}
	return false
}
