package main

import (
	"context"
	"crypto/sha256"
	"database/sql"
	"encoding/hex"
	"errors"
	"net/url"
	"strings"
	"time"

	affordances "github.com/affordances/affordances-go"
	"golang.org/x/crypto/bcrypt"
	_ "modernc.org/sqlite" // the "sqlite" driver of database/sql, in Go: no cgo
)

// passwordCost is the bcrypt cost of the board's password hashes. Its only
// accounts are the seeded ones, whose passwords are published (the README,
// the demo's banner): a costly hash of them protects nothing, and every new
// board, and every test that starts one, would pay for it, a second a hash
// under the race detector. A site whose people choose their passwords
// keeps bcrypt.DefaultCost or more, as the demo shop does for its sign-ups.
const passwordCost = bcrypt.MinCost

// sessionTTL is how long a sign-in lasts.
const sessionTTL = 30 * 24 * time.Hour

// The columns of a board, in order, and their names.
var (
	statuses    = []string{"todo", "doing", "done"}
	statusNames = map[string]string{"todo": "To do", "doing": "Doing", "done": "Done"}
)

// A User is someone who signs in.
type User struct {
	ID          int64
	Email, Name string
}

// A member is a user as a board lists them: their email only to the
// board's members, their name to anyone who sees the board.
type member struct {
	Email string `json:"email,omitempty" jsonschema:"shown to the board's members only"`
	Name  string `json:"name"`

	owner bool // they own the board
}

// Note is what the members' list says beside the member's name: their
// email when shown, and whether they own the board.
func (m member) Note() string {
	switch {
	case m.owner && m.Email != "":
		return m.Email + ", owner"
	case m.owner:
		return "owner"
	}
	return m.Email
}

// A boardView is one board as its members (or, for a public board, anyone)
// see it.
type boardView struct {
	Slug    string   `json:"slug"`
	Title   string   `json:"title"`
	Public  bool     `json:"public"`
	Owner   string   `json:"owner" jsonschema:"the owner's name"`
	Members []member `json:"members"`
	Tasks   int      `json:"tasks" jsonschema:"how many tasks the board has"`

	id, ownerID int64
	member      bool // the requester is a member
}

// A task is one card of a board.
type task struct {
	ID           int64  `json:"id"`
	Title        string `json:"title"`
	Status       string `json:"status"`
	Assignee     string `json:"assignee,omitempty" jsonschema:"the assignee's email, shown to the board's members only"`
	AssigneeName string `json:"assigneeName,omitempty"`
	Due          string `json:"due,omitempty" jsonschema:"YYYY-MM-DD"`
}

// A boardCard is a board in the list of boards.
type boardCard struct {
	Slug   string `json:"slug"`
	Title  string `json:"title"`
	Public bool   `json:"public"`
	Tasks  int    `json:"tasks"`
}

var (
	errSignIn       = affordances.NewError(affordances.Unauthorized, "Wrong email or password.")
	errNoBoard      = affordances.NewError(affordances.NotFound, "No such board. A private board is shown only to its members.")
	errNoTask       = affordances.NewError(affordances.NotFound, "No such task on this board.")
	errNotAMember   = invalid("/assignee", "The assignee must be a member of the board.")
	errNoAccount    = invalid("/email", "No one has an account with that email.")
	errAlreadyThere = affordances.NewError(affordances.Unavailable, "That person is already a member of this board.")
)

// invalid is invalid input, with its issue at path.
func invalid(path, msg string) *affordances.Error {
	e := affordances.NewError(affordances.InvalidInput, msg)
	e.Issues = []affordances.Issue{{Path: path, Message: msg}}
	return e
}

// openDB opens the SQLite file at path, created when missing, with the
// pragmas a web server wants on every connection: WAL, so reading never
// waits for a writer; a wait of up to 5 s for a lock rather than an error
// at once; foreign keys enforced. Transactions take the write lock when
// they begin (BEGIN IMMEDIATE), so two of them never deadlock upgrading a
// read lock.
func openDB(ctx context.Context, path string) (*sql.DB, error) {
	dsn := "file:" + (&url.URL{Path: path}).EscapedPath() +
		"?_pragma=busy_timeout(5000)&_pragma=journal_mode(WAL)&_pragma=foreign_keys(1)&_txlock=immediate"
	db, err := sql.Open("sqlite", dsn)
	if err != nil {
		return nil, err
	}
	if err := db.PingContext(ctx); err != nil {
		db.Close()
		return nil, err
	}
	return db, nil
}

// store is the board's data. Emails are kept, and looked up, trimmed and
// in lower case. What it reads of a board for someone who is not a member
// names people by their names alone, never their emails.
type store struct {
	db *sql.DB
}

const schemaSQL = `
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS users (id INTEGER PRIMARY KEY, email TEXT NOT NULL UNIQUE COLLATE NOCASE, name TEXT NOT NULL, password_hash BLOB NOT NULL);
CREATE TABLE IF NOT EXISTS sessions (hash TEXT PRIMARY KEY, user_id INTEGER NOT NULL REFERENCES users(id) ON DELETE CASCADE, expires INTEGER NOT NULL);
CREATE TABLE IF NOT EXISTS tokens (hash TEXT PRIMARY KEY, user_id INTEGER NOT NULL UNIQUE REFERENCES users(id) ON DELETE CASCADE);
CREATE TABLE IF NOT EXISTS boards (id INTEGER PRIMARY KEY, slug TEXT NOT NULL UNIQUE, title TEXT NOT NULL,
	owner_id INTEGER NOT NULL REFERENCES users(id), public INTEGER NOT NULL);
CREATE TABLE IF NOT EXISTS members (board_id INTEGER NOT NULL REFERENCES boards(id) ON DELETE CASCADE,
	user_id INTEGER NOT NULL REFERENCES users(id) ON DELETE CASCADE, PRIMARY KEY (board_id, user_id));
CREATE TABLE IF NOT EXISTS tasks (id INTEGER PRIMARY KEY, board_id INTEGER NOT NULL REFERENCES boards(id) ON DELETE CASCADE,
	title TEXT NOT NULL, status TEXT NOT NULL CHECK (status IN ('todo', 'doing', 'done')),
	assignee_id INTEGER REFERENCES users(id), due TEXT NOT NULL DEFAULT '');
CREATE INDEX IF NOT EXISTS tasks_board ON tasks(board_id);
`

// migrate creates the tables when there are none, and seeds them (the
// realistic seed when realistic is set), in one transaction: a second
// process starting on the same file waits for it.
func (st *store) migrate(ctx context.Context, realistic bool) error {
	return st.write(ctx, func(tx *sql.Tx) error {
		if _, err := tx.ExecContext(ctx, schemaSQL); err != nil {
			return err
		}
		if _, err := tx.ExecContext(ctx, `INSERT INTO meta (key, value) VALUES ('secret', $1) ON CONFLICT (key) DO NOTHING`, randomToken()); err != nil {
			return err
		}
		var n int
		if err := tx.QueryRowContext(ctx, `SELECT count(*) FROM users`).Scan(&n); err != nil || n > 0 {
			return err
		}
		return seed(ctx, tx, realistic)
	})
}

// write runs fn in one transaction, committed when fn returns nil and
// rolled back otherwise.
func (st *store) write(ctx context.Context, fn func(tx *sql.Tx) error) error {
	tx, err := st.db.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback() // after Commit, it does nothing
	if err := fn(tx); err != nil {
		return err
	}
	return tx.Commit()
}

// secret is the key the site signs its cookies with, made on first start
// and kept in the database: a restart keeps what was signed.
func (st *store) secret(ctx context.Context) ([]byte, error) {
	var s string
	err := st.db.QueryRowContext(ctx, `SELECT value FROM meta WHERE key = 'secret'`).Scan(&s)
	return []byte(s), err
}

// exec runs one write statement.
func (st *store) exec(ctx context.Context, query string, args ...any) error {
	_, err := st.db.ExecContext(ctx, query, args...)
	return err
}

// normEmail is an email as the store keeps it.
func normEmail(email string) string { return strings.ToLower(strings.TrimSpace(email)) }

func hashSecret(s string) string {
	h := sha256.Sum256([]byte(s))
	return hex.EncodeToString(h[:])
}

// A querier is the database or a transaction.
type querier interface {
	QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row
}

// findUser returns the user a query of id, email and name finds, or nil.
func findUser(ctx context.Context, q querier, query string, args ...any) (*User, error) {
	u := &User{}
	err := q.QueryRowContext(ctx, query, args...).Scan(&u.ID, &u.Email, &u.Name)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, nil
	}
	return u, err
}

func (st *store) tokenUser(ctx context.Context, token string) (*User, error) {
	return findUser(ctx, st.db, `SELECT u.id, u.email, u.name FROM tokens t JOIN users u ON u.id = t.user_id WHERE t.hash = $1`, hashSecret(token))
}

func (st *store) sessionUser(ctx context.Context, sid string) (*User, error) {
	return findUser(ctx, st.db, `SELECT u.id, u.email, u.name FROM sessions s JOIN users u ON u.id = s.user_id WHERE s.hash = $1 AND s.expires > $2`,
		hashSecret(sid), time.Now().Unix())
}

// setToken makes token the one bearer token of the user with email.
func (st *store) setToken(ctx context.Context, email, token string) error {
	return st.exec(ctx, `INSERT INTO tokens (hash, user_id) SELECT $1, id FROM users WHERE email = $2
		ON CONFLICT (user_id) DO UPDATE SET hash = excluded.hash`, hashSecret(token), normEmail(email))
}

// noSuchUser is a hash no password matches, compared for an email that has
// no account.
var noSuchUser, _ = bcrypt.GenerateFromPassword([]byte("no such user"), passwordCost)

// signIn checks the password and starts a session.
func (st *store) signIn(ctx context.Context, email, password string) (*User, string, error) {
	var hash []byte
	u := &User{}
	err := st.db.QueryRowContext(ctx, `SELECT id, email, name, password_hash FROM users WHERE email = $1`, normEmail(email)).
		Scan(&u.ID, &u.Email, &u.Name, &hash)
	if errors.Is(err, sql.ErrNoRows) {
		// Take as long as for an account that exists: the time of the
		// answer must not say which emails have one.
		bcrypt.CompareHashAndPassword(noSuchUser, []byte(password))
		return nil, "", errSignIn
	}
	if err != nil {
		return nil, "", err
	}
	if bcrypt.CompareHashAndPassword(hash, []byte(password)) != nil {
		return nil, "", errSignIn
	}
	sid := randomToken()
	err = st.exec(ctx, `INSERT INTO sessions (hash, user_id, expires) VALUES ($1, $2, $3)`, hashSecret(sid), u.ID, time.Now().Add(sessionTTL).Unix())
	return u, sid, err
}

func (st *store) signOut(ctx context.Context, sid string) error {
	return st.exec(ctx, `DELETE FROM sessions WHERE hash = $1`, hashSecret(sid))
}

// boards returns the boards uid is a member of, and the public boards
// they are not.
func (st *store) boards(ctx context.Context, uid int64) (yours, public []boardCard, err error) {
	rows, err := st.db.QueryContext(ctx, `
		SELECT b.slug, b.title, b.public, (SELECT count(*) FROM tasks t WHERE t.board_id = b.id),
			EXISTS (SELECT 1 FROM members m WHERE m.board_id = b.id AND m.user_id = $1)
		FROM boards b ORDER BY b.title`, uid)
	if err != nil {
		return nil, nil, err
	}
	defer rows.Close()
	yours, public = []boardCard{}, []boardCard{}
	for rows.Next() {
		var c boardCard
		var mine bool
		if err := rows.Scan(&c.Slug, &c.Title, &c.Public, &c.Tasks, &mine); err != nil {
			return nil, nil, err
		}
		if mine {
			yours = append(yours, c)
		} else if c.Public {
			public = append(public, c)
		}
	}
	return yours, public, rows.Err()
}

// board returns the board of slug as uid sees it: not found when it is
// private and uid is not a member; its members' emails only for a member.
func (st *store) board(ctx context.Context, slug string, uid int64) (*boardView, error) {
	b := &boardView{Slug: slug, Members: []member{}}
	err := st.db.QueryRowContext(ctx, `
		SELECT b.id, b.title, b.public, b.owner_id, o.name,
			(SELECT count(*) FROM tasks t WHERE t.board_id = b.id),
			EXISTS (SELECT 1 FROM members m WHERE m.board_id = b.id AND m.user_id = $1)
		FROM boards b JOIN users o ON o.id = b.owner_id WHERE b.slug = $2`, uid, slug).
		Scan(&b.id, &b.Title, &b.Public, &b.ownerID, &b.Owner, &b.Tasks, &b.member)
	if errors.Is(err, sql.ErrNoRows) || (err == nil && !b.Public && !b.member) {
		return nil, errNoBoard
	}
	if err != nil {
		return nil, err
	}
	rows, err := st.db.QueryContext(ctx, `SELECT u.id, u.email, u.name FROM members m JOIN users u ON u.id = m.user_id
		WHERE m.board_id = $1 ORDER BY u.name, u.email`, b.id)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	for rows.Next() {
		var m member
		var id int64
		if err := rows.Scan(&id, &m.Email, &m.Name); err != nil {
			return nil, err
		}
		m.owner = id == b.ownerID
		if !b.member {
			m.Email = ""
		}
		b.Members = append(b.Members, m)
	}
	return b, rows.Err()
}

// tasks returns the board b's tasks whose title contains q (all when q is
// empty; SQLite's LIKE ignores the case of ASCII letters), by column, then
// due date (none last), with the assignees' emails only for a member of b.
func (st *store) tasks(ctx context.Context, b *boardView, q string) ([]task, error) {
	like := "%" + strings.NewReplacer(`\`, `\\`, `%`, `\%`, `_`, `\_`).Replace(q) + "%"
	rows, err := st.db.QueryContext(ctx, `
		SELECT t.id, t.title, t.status, COALESCE(u.email, ''), COALESCE(u.name, ''), t.due
		FROM tasks t LEFT JOIN users u ON u.id = t.assignee_id
		WHERE t.board_id = $1 AND t.title LIKE $2 ESCAPE '\'
		ORDER BY CASE t.status WHEN 'todo' THEN 0 WHEN 'doing' THEN 1 ELSE 2 END, t.due = '', t.due, t.id`, b.id, like)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := []task{}
	for rows.Next() {
		var t task
		if err := rows.Scan(&t.ID, &t.Title, &t.Status, &t.Assignee, &t.AssigneeName, &t.Due); err != nil {
			return nil, err
		}
		if !b.member {
			t.Assignee = ""
		}
		out = append(out, t)
	}
	return out, rows.Err()
}

// createTask adds a task to the board's first column. An assignee who is
// not a member is invalid input.
func (st *store) createTask(ctx context.Context, b *boardView, title, assignee, due string) (task, error) {
	t := task{Title: title, Status: "todo", Assignee: assignee, Due: due}
	err := st.write(ctx, func(tx *sql.Tx) error {
		var who any // NULL: nobody
		if assignee != "" {
			var id int64
			err := tx.QueryRowContext(ctx, `SELECT u.id, u.name FROM members m JOIN users u ON u.id = m.user_id WHERE m.board_id = $1 AND u.email = $2`,
				b.id, normEmail(assignee)).Scan(&id, &t.AssigneeName)
			if errors.Is(err, sql.ErrNoRows) {
				return errNotAMember
			}
			if err != nil {
				return err
			}
			who = id
		}
		return tx.QueryRowContext(ctx, `INSERT INTO tasks (board_id, title, status, assignee_id, due) VALUES ($1, $2, 'todo', $3, $4) RETURNING id`,
			b.id, title, who, due).Scan(&t.ID)
	})
	return t, err
}

// moveTask puts the board's task id in the column status.
func (st *store) moveTask(ctx context.Context, boardID, id int64, status string) (task, error) {
	return st.taskBy(ctx, `UPDATE tasks SET status = $1 WHERE board_id = $2 AND id = $3 RETURNING id, title, status`, status, boardID, id)
}

func (st *store) deleteTask(ctx context.Context, boardID, id int64) (task, error) {
	return st.taskBy(ctx, `DELETE FROM tasks WHERE board_id = $1 AND id = $2 RETURNING id, title, status`, boardID, id)
}

// taskBy returns the task a statement returns: not found when none.
func (st *store) taskBy(ctx context.Context, query string, args ...any) (task, error) {
	var t task
	err := st.db.QueryRowContext(ctx, query, args...).Scan(&t.ID, &t.Title, &t.Status)
	if errors.Is(err, sql.ErrNoRows) {
		return t, errNoTask
	}
	return t, err
}

// addMember makes the user with email a member of the board.
func (st *store) addMember(ctx context.Context, boardID int64, email string) (*User, error) {
	var u *User
	err := st.write(ctx, func(tx *sql.Tx) error {
		var err error
		u, err = findUser(ctx, tx, `SELECT id, email, name FROM users WHERE email = $1`, normEmail(email))
		if err != nil {
			return err
		}
		if u == nil {
			return errNoAccount
		}
		res, err := tx.ExecContext(ctx, `INSERT INTO members (board_id, user_id) VALUES ($1, $2) ON CONFLICT (board_id, user_id) DO NOTHING`, boardID, u.ID)
		if err != nil {
			return err
		}
		n, err := res.RowsAffected()
		if err == nil && n == 0 {
			err = errAlreadyThere
		}
		return err
	})
	if err != nil {
		return nil, err
	}
	return u, nil
}

func (st *store) deleteBoard(ctx context.Context, boardID int64) error {
	return st.exec(ctx, `DELETE FROM boards WHERE id = $1`, boardID)
}
