package main

import (
	"context"
	"database/sql"
	"time"

	"golang.org/x/crypto/bcrypt"
)

// seedUsers sign in with the password in their name: alice/alice.
var seedUsers = []struct{ email, name, password string }{
	{demoEmail, "Alice", demoPassword},
	{"bob@example.com", "Bob", "bob"},
	{"carol@example.com", "Carol", "carol"},
}

type seedTask struct {
	title, status string
	assignee      int // an index of seedUsers, -1 for nobody
	dueInDays     int // 0 for no due date
}

// seedBoards are alice's. The first is public, with everyone on it; the
// second is private to alice and bob, so carol does not find it.
var seedBoards = []struct {
	slug, title string
	public      bool
	members     []int // indexes of seedUsers, the owner first
	tasks       []seedTask
	realistic   realisticWork // the realistic seed's more tasks
}{
	{"website-relaunch", "Website relaunch", true, []int{0, 1, 2}, []seedTask{
		{"Write the new home page copy", "todo", 2, 9},
		{"Pick a typeface for headings", "todo", 1, 5},
		{"Redirect the old blog URLs", "todo", -1, -1},
		{"Accessibility audit of the sign-up form", "doing", 1, 3},
		{"Design the pricing page", "doing", 2, 6},
		{"Set up the staging server", "done", 0, -4},
		{"Move the domain to the new DNS host", "done", 1, -2},
	}, relaunchWork},
	{"team-offsite", "Team offsite", false, []int{0, 1}, []seedTask{
		{"Book the train tickets", "todo", 1, 12},
		{"Plan Saturday's walk", "todo", -1, 20},
		{"Collect dietary needs", "doing", 0, 7},
		{"Reserve the cottage", "done", 0, -10},
		{"Agree on the dates", "done", 1, -20},
	}, offsiteWork},
}

// seed fills a new database: the users, their boards and tasks, with due
// dates around today so the board looks alive; realistic then adds the
// tasks of realisticTasks, after the others so that theirs keep their ids.
func seed(ctx context.Context, tx *sql.Tx, realistic bool) error {
	ids := make([]int64, len(seedUsers))
	for i, u := range seedUsers {
		hash, err := bcrypt.GenerateFromPassword([]byte(u.password), passwordCost)
		if err != nil {
			return err
		}
		if err := tx.QueryRowContext(ctx, `INSERT INTO users (email, name, password_hash) VALUES ($1, $2, $3) RETURNING id`,
			normEmail(u.email), u.name, hash).Scan(&ids[i]); err != nil {
			return err
		}
	}
	today := time.Now()
	addTasks := func(board int64, tasks []seedTask) error {
		for _, t := range tasks {
			var who any
			if t.assignee >= 0 {
				who = ids[t.assignee]
			}
			due := ""
			if t.dueInDays != 0 {
				due = today.AddDate(0, 0, t.dueInDays).Format(time.DateOnly)
			}
			if _, err := tx.ExecContext(ctx, `INSERT INTO tasks (board_id, title, status, assignee_id, due) VALUES ($1, $2, $3, $4, $5)`,
				board, t.title, t.status, who, due); err != nil {
				return err
			}
		}
		return nil
	}
	boards := make([]int64, len(seedBoards))
	for i, b := range seedBoards {
		if err := tx.QueryRowContext(ctx, `INSERT INTO boards (slug, title, owner_id, public) VALUES ($1, $2, $3, $4) RETURNING id`,
			b.slug, b.title, ids[b.members[0]], b.public).Scan(&boards[i]); err != nil {
			return err
		}
		for _, m := range b.members {
			if _, err := tx.ExecContext(ctx, `INSERT INTO members (board_id, user_id) VALUES ($1, $2)`, boards[i], ids[m]); err != nil {
				return err
			}
		}
		if err := addTasks(boards[i], b.tasks); err != nil {
			return err
		}
	}
	if realistic {
		for i, b := range seedBoards {
			if err := addTasks(boards[i], realisticTasks(b.members, b.realistic)); err != nil {
				return err
			}
		}
	}
	return nil
}
