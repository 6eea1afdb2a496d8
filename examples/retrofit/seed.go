package main

import (
	"context"
	"database/sql"
	"time"

	"golang.org/x/crypto/bcrypt"
)

// The first seeded user, whom the banner names.
const (
	demoEmail    = "ada@example.com"
	demoPassword = "ada"
)

type seedLink struct {
	url, title, tags string
	read, private    bool
	daysAgo          int
}

// seedUsers sign in with the password in their handle: ada/ada.
var seedUsers = []struct {
	handle, email, name, password string
	links                         []seedLink
}{
	{"ada", demoEmail, "Ada Lovelace", demoPassword, []seedLink{
		{"https://go.dev/blog/routing-enhancements", "Routing Enhancements for Go 1.22", "go web", true, false, 30},
		{"https://www.sqlite.org/wal.html", "Write-Ahead Logging", "sqlite databases", true, false, 21},
		{"https://developer.mozilla.org/en-US/docs/Web/HTTP/CSP", "Content Security Policy (CSP)", "security web", false, false, 9},
		{"https://owasp.org/www-community/attacks/csrf", "Cross Site Request Forgery", "security", false, false, 6},
		{"https://go.dev/doc/effective_go", "Effective Go", "go reading", false, false, 3},
		{"https://example.com/birthday-ideas", "Birthday ideas for Grace", "personal", false, true, 1},
	}},
	{"grace", "grace@example.com", "Grace Hopper", "grace", []seedLink{
		{"https://www.computerhistory.org/", "Computer History Museum", "history", true, false, 12},
		{"https://go.dev/doc/tutorial/database-access", "Tutorial: Accessing a relational database", "go databases", false, false, 4},
		{"https://pkg.go.dev/net/http", "net/http package", "go", false, false, 2},
	}},
}

// seed fills a new database with the seed users and their links.
func seed(ctx context.Context, tx *sql.Tx) error {
	now := time.Now()
	for _, u := range seedUsers {
		hash, err := bcrypt.GenerateFromPassword([]byte(u.password), passwordCost)
		if err != nil {
			return err
		}
		var uid int64
		if err := tx.QueryRowContext(ctx, `INSERT INTO users (handle, email, name, password_hash) VALUES (?, ?, ?, ?) RETURNING id`,
			u.handle, u.email, u.name, hash).Scan(&uid); err != nil {
			return err
		}
		for _, l := range u.links {
			var id int64
			if err := tx.QueryRowContext(ctx, `INSERT INTO links (user_id, url, title, read, private, created) VALUES (?, ?, ?, ?, ?, ?) RETURNING id`,
				uid, l.url, l.title, l.read, l.private, now.AddDate(0, 0, -l.daysAgo).Unix()).Scan(&id); err != nil {
				return err
			}
			tags, _ := parseTags(l.tags)
			if err := setTags(ctx, tx, id, tags); err != nil {
				return err
			}
		}
	}
	return nil
}
