package board

import (
	"context"
	"crypto/sha256"
	"database/sql"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"strings"
	"time"

	affordances "github.com/affordances/affordances-go"
	"golang.org/x/crypto/bcrypt"
	_ "modernc.org/sqlite" // the "sqlite" database/sql driver
)

// bcryptCost is the cost of password hashes; tests lower it.
var bcryptCost = bcrypt.DefaultCost

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

// A member is a user as a board lists them.
type member struct {
	Email string `json:"email"`
	Name  string `json:"name"`
}

// A boardView is one board as its members (or, for a public board, anyone)
// see it.
type boardView struct {
	Slug    string   `json:"slug"`
	Title   string   `json:"title"`
	Public  bool     `json:"public"`
	Owner   string   `json:"owner" jsonschema:"the owner's email"`
	Members []member `json:"members"`
	Tasks   int      `json:"tasks" jsonschema:"how many tasks the board has"`

	id, ownerID int64
	member      bool // the requester is a member
}

// A task is one card of a board.
type task struct {
	ID       int64  `json:"id"`
	Title    string `json:"title"`
	Status   string `json:"status"`
	Assignee string `json:"assignee,omitempty" jsonschema:"a member's email"`
	Due      string `json:"due,omitempty" jsonschema:"YYYY-MM-DD"`
	Who      string `json:"-"` // the assignee's name
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

// store is the board's data in one SQLite file. One connection serves
// every query, so writes never wait for a lock.
type store struct {
	db *sql.DB
}

const schemaSQL = `
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

// openStore opens the file at path, creating and seeding it when new.
func openStore(ctx context.Context, path string) (*store, error) {
	dsn := "file:" + (&url.URL{Path: path}).EscapedPath() + "?_pragma=busy_timeout(5000)&_pragma=journal_mode(WAL)&_pragma=foreign_keys(1)"
	db, err := sql.Open("sqlite", dsn)
	if err != nil {
		return nil, fmt.Errorf("board: open %s: %w", path, err)
	}
	db.SetMaxOpenConns(1)
	if err := migrate(ctx, db); err != nil {
		db.Close()
		return nil, fmt.Errorf("board: open %s: %w", path, err)
	}
	return &store{db: db}, nil
}

// migrate creates the tables, and seeds them when there is no user yet.
func migrate(ctx context.Context, db *sql.DB) error {
	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	if _, err := tx.ExecContext(ctx, schemaSQL); err != nil {
		return err
	}
	var n int
	if err := tx.QueryRowContext(ctx, `SELECT COUNT(*) FROM users`).Scan(&n); err != nil || n > 0 {
		return err
	}
	if err := seed(ctx, tx); err != nil {
		return err
	}
	return tx.Commit()
}

func (st *store) close() error { return st.db.Close() }

// exec runs one statement.
func (st *store) exec(ctx context.Context, query string, args ...any) error {
	_, err := st.db.ExecContext(ctx, query, args...)
	return err
}

func hashSecret(s string) string {
	h := sha256.Sum256([]byte(s))
	return hex.EncodeToString(h[:])
}

// user returns the user a query of id, email and name finds, or nil.
func (st *store) user(ctx context.Context, query string, args ...any) (*User, error) {
	u := &User{}
	err := st.db.QueryRowContext(ctx, query, args...).Scan(&u.ID, &u.Email, &u.Name)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, nil
	}
	return u, err
}

func (st *store) tokenUser(ctx context.Context, token string) (*User, error) {
	return st.user(ctx, `SELECT u.id, u.email, u.name FROM tokens t JOIN users u ON u.id = t.user_id WHERE t.hash = ?`, hashSecret(token))
}

func (st *store) sessionUser(ctx context.Context, sid string) (*User, error) {
	return st.user(ctx, `SELECT u.id, u.email, u.name FROM sessions s JOIN users u ON u.id = s.user_id WHERE s.hash = ? AND s.expires > ?`,
		hashSecret(sid), time.Now().Unix())
}

// setToken makes token the one bearer token of the user with email.
func (st *store) setToken(ctx context.Context, email, token string) error {
	return st.exec(ctx, `INSERT OR REPLACE INTO tokens (hash, user_id) SELECT ?, id FROM users WHERE email = ?`, hashSecret(token), email)
}

// noSuchUser is a hash no password matches, compared for an email that has
// no account.
var noSuchUser, _ = bcrypt.GenerateFromPassword([]byte("no such user"), bcrypt.DefaultCost)

// signIn checks the password and starts a session.
func (st *store) signIn(ctx context.Context, email, password string) (*User, string, error) {
	var hash []byte
	u := &User{}
	err := st.db.QueryRowContext(ctx, `SELECT id, email, name, password_hash FROM users WHERE email = ?`, strings.TrimSpace(email)).
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
	err = st.exec(ctx, `INSERT INTO sessions (hash, user_id, expires) VALUES (?, ?, ?)`, hashSecret(sid), u.ID, time.Now().Add(sessionTTL).Unix())
	return u, sid, err
}

func (st *store) signOut(ctx context.Context, sid string) error {
	return st.exec(ctx, `DELETE FROM sessions WHERE hash = ?`, hashSecret(sid))
}

// boards returns the boards uid is a member of, and the public boards
// they are not.
func (st *store) boards(ctx context.Context, uid int64) (yours, public []boardCard, err error) {
	rows, err := st.db.QueryContext(ctx, `
		SELECT b.slug, b.title, b.public, (SELECT COUNT(*) FROM tasks t WHERE t.board_id = b.id),
			EXISTS (SELECT 1 FROM members m WHERE m.board_id = b.id AND m.user_id = ?)
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
// private and uid is not a member.
func (st *store) board(ctx context.Context, slug string, uid int64) (*boardView, error) {
	b := &boardView{Slug: slug}
	var members string
	err := st.db.QueryRowContext(ctx, `
		SELECT b.id, b.title, b.public, b.owner_id, o.email,
			(SELECT COUNT(*) FROM tasks t WHERE t.board_id = b.id),
			EXISTS (SELECT 1 FROM members m WHERE m.board_id = b.id AND m.user_id = ?),
			(SELECT json_group_array(json_object('email', u.email, 'name', u.name) ORDER BY u.name)
				FROM members m JOIN users u ON u.id = m.user_id WHERE m.board_id = b.id)
		FROM boards b JOIN users o ON o.id = b.owner_id WHERE b.slug = ?`, uid, slug).
		Scan(&b.id, &b.Title, &b.Public, &b.ownerID, &b.Owner, &b.Tasks, &b.member, &members)
	if errors.Is(err, sql.ErrNoRows) || (err == nil && !b.Public && !b.member) {
		return nil, errNoBoard
	}
	if err != nil {
		return nil, err
	}
	return b, json.Unmarshal([]byte(members), &b.Members)
}

// tasks returns the board's tasks whose title contains q (all when q is
// empty), by column, then due date (none last).
func (st *store) tasks(ctx context.Context, boardID int64, q string) ([]task, error) {
	like := "%" + strings.NewReplacer(`\`, `\\`, `%`, `\%`, `_`, `\_`).Replace(q) + "%"
	rows, err := st.db.QueryContext(ctx, `
		SELECT t.id, t.title, t.status, COALESCE(u.email, ''), COALESCE(u.name, ''), t.due
		FROM tasks t LEFT JOIN users u ON u.id = t.assignee_id
		WHERE t.board_id = ? AND t.title LIKE ? ESCAPE '\'
		ORDER BY CASE t.status WHEN 'todo' THEN 0 WHEN 'doing' THEN 1 ELSE 2 END, t.due = '', t.due, t.id`, boardID, like)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := []task{}
	for rows.Next() {
		var t task
		if err := rows.Scan(&t.ID, &t.Title, &t.Status, &t.Assignee, &t.Who, &t.Due); err != nil {
			return nil, err
		}
		out = append(out, t)
	}
	return out, rows.Err()
}

// createTask adds a task to the board's first column. An assignee who is
// not a member is invalid input.
func (st *store) createTask(ctx context.Context, b *boardView, title, assignee, due string) (task, error) {
	t := task{Title: title, Status: "todo", Assignee: assignee, Due: due}
	var who any // NULL: nobody
	if assignee != "" {
		var id int64
		err := st.db.QueryRowContext(ctx, `SELECT u.id, u.name FROM members m JOIN users u ON u.id = m.user_id WHERE m.board_id = ? AND u.email = ?`,
			b.id, assignee).Scan(&id, &t.Who)
		if errors.Is(err, sql.ErrNoRows) {
			return t, errNotAMember
		}
		if err != nil {
			return t, err
		}
		who = id
	}
	err := st.db.QueryRowContext(ctx, `INSERT INTO tasks (board_id, title, status, assignee_id, due) VALUES (?, ?, 'todo', ?, ?) RETURNING id`,
		b.id, title, who, due).Scan(&t.ID)
	return t, err
}

// moveTask puts the board's task id in the column status.
func (st *store) moveTask(ctx context.Context, boardID, id int64, status string) (task, error) {
	return st.taskBy(ctx, `UPDATE tasks SET status = ? WHERE board_id = ? AND id = ? RETURNING id, title, status`, status, boardID, id)
}

func (st *store) deleteTask(ctx context.Context, boardID, id int64) (task, error) {
	return st.taskBy(ctx, `DELETE FROM tasks WHERE board_id = ? AND id = ? RETURNING id, title, status`, boardID, id)
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
	u, err := st.user(ctx, `SELECT id, email, name FROM users WHERE email = ?`, strings.TrimSpace(email))
	if err != nil {
		return nil, err
	}
	if u == nil {
		return nil, errNoAccount
	}
	res, err := st.db.ExecContext(ctx, `INSERT OR IGNORE INTO members (board_id, user_id) VALUES (?, ?)`, boardID, u.ID)
	if err != nil {
		return nil, err
	}
	if n, _ := res.RowsAffected(); n == 0 {
		return nil, errAlreadyThere
	}
	return u, nil
}

func (st *store) deleteBoard(ctx context.Context, boardID int64) error {
	return st.exec(ctx, `DELETE FROM boards WHERE id = ?`, boardID)
}
