package main

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"database/sql"
	"encoding/hex"
	"errors"
	"net/url"
	"strings"
	"sync"
	"time"

	"golang.org/x/crypto/bcrypt"
	_ "modernc.org/sqlite" // the "sqlite" driver of database/sql, in Go: no cgo
)

// passwordCost is the bcrypt cost of new password hashes. The tests lower it.
var passwordCost = bcrypt.DefaultCost

// sessionTTL is how long a session lasts after it starts.
const sessionTTL = 30 * 24 * time.Hour

// errNotFound is a link that does not exist or belongs to someone else.
var errNotFound = errors.New("links: not found")

// A User is someone with an account. Their Handle names their public page.
type User struct {
	ID                  int64
	Handle, Email, Name string
}

// A Link is a saved web page. Tags are sorted, in lower case.
type Link struct {
	ID      int64     `json:"id"`
	URL     string    `json:"url"`
	Title   string    `json:"title"`
	Tags    []string  `json:"tags"`
	Read    bool      `json:"read"`
	Private bool      `json:"private"`
	Created time.Time `json:"created"`
}

// Host is the link's host name, shown beside its title.
func (l Link) Host() string {
	u, err := url.Parse(l.URL)
	if err != nil {
		return ""
	}
	return strings.TrimPrefix(u.Hostname(), "www.")
}

// A session is one browser's, signed in or not. Its CSRF token goes into
// every form the browser posts.
type session struct {
	id    string // the cookie's value; the database keeps only its hash
	CSRF  string
	Flash string // a message for the next page, shown once
	User  *User  // nil until someone signs in
}

// openDB opens the SQLite file at path, created when missing, with the
// pragmas a web server wants on every connection: WAL, so reading never
// waits for a writer; a wait of up to 5 s for a lock rather than an error
// at once; foreign keys enforced.
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

// store is the app's data. Every method that reads or changes links takes
// the id of their owner, so nobody reaches another's.
type store struct {
	db *sql.DB
}

const schemaSQL = `
CREATE TABLE IF NOT EXISTS users (id INTEGER PRIMARY KEY, handle TEXT NOT NULL UNIQUE,
	email TEXT NOT NULL UNIQUE COLLATE NOCASE, name TEXT NOT NULL, password_hash BLOB NOT NULL);
CREATE TABLE IF NOT EXISTS sessions (hash TEXT PRIMARY KEY, user_id INTEGER REFERENCES users(id) ON DELETE CASCADE,
	csrf TEXT NOT NULL, flash TEXT NOT NULL DEFAULT '', expires INTEGER NOT NULL);
CREATE TABLE IF NOT EXISTS links (id INTEGER PRIMARY KEY, user_id INTEGER NOT NULL REFERENCES users(id) ON DELETE CASCADE,
	url TEXT NOT NULL, title TEXT NOT NULL, read INTEGER NOT NULL DEFAULT 0, private INTEGER NOT NULL DEFAULT 0,
	created INTEGER NOT NULL);
CREATE TABLE IF NOT EXISTS tags (link_id INTEGER NOT NULL REFERENCES links(id) ON DELETE CASCADE,
	tag TEXT NOT NULL, PRIMARY KEY (link_id, tag));
CREATE INDEX IF NOT EXISTS links_user ON links(user_id, created);
`

// migrate creates the tables when there are none, seeds them when they
// have no user, and forgets expired sessions.
func (st *store) migrate(ctx context.Context) error {
	return st.write(ctx, func(tx *sql.Tx) error {
		if _, err := tx.ExecContext(ctx, schemaSQL); err != nil {
			return err
		}
		if _, err := tx.ExecContext(ctx, `DELETE FROM sessions WHERE expires < ?`, time.Now().Unix()); err != nil {
			return err
		}
		var n int
		if err := tx.QueryRowContext(ctx, `SELECT count(*) FROM users`).Scan(&n); err != nil || n > 0 {
			return err
		}
		return seed(ctx, tx)
	})
}

// write runs fn in one transaction, committed when fn returns nil.
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

func hashID(id string) string {
	h := sha256.Sum256([]byte(id))
	return hex.EncodeToString(h[:])
}

// session returns the unexpired session whose cookie carries id, or nil.
func (st *store) session(ctx context.Context, id string) (*session, error) {
	s := &session{id: id}
	var uid sql.NullInt64
	var u User
	err := st.db.QueryRowContext(ctx, `
		SELECT s.csrf, s.flash, s.user_id, COALESCE(u.handle, ''), COALESCE(u.email, ''), COALESCE(u.name, '')
		FROM sessions s LEFT JOIN users u ON u.id = s.user_id
		WHERE s.hash = ? AND s.expires > ?`, hashID(id), time.Now().Unix()).
		Scan(&s.CSRF, &s.Flash, &uid, &u.Handle, &u.Email, &u.Name)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	if uid.Valid {
		u.ID = uid.Int64
		s.User = &u
	}
	return s, nil
}

// newSession starts a session with a new id and CSRF token, for user u,
// or for nobody yet when u is nil.
func (st *store) newSession(ctx context.Context, u *User) (*session, error) {
	s := &session{id: rand.Text(), CSRF: rand.Text(), User: u}
	var uid any // NULL: nobody
	if u != nil {
		uid = u.ID
	}
	_, err := st.db.ExecContext(ctx, `INSERT INTO sessions (hash, user_id, csrf, expires) VALUES (?, ?, ?, ?)`,
		hashID(s.id), uid, s.CSRF, time.Now().Add(sessionTTL).Unix())
	return s, err
}

func (st *store) endSession(ctx context.Context, s *session) error {
	_, err := st.db.ExecContext(ctx, `DELETE FROM sessions WHERE hash = ?`, hashID(s.id))
	return err
}

// setFlash keeps msg for the next page the session's browser gets.
func (st *store) setFlash(ctx context.Context, s *session, msg string) error {
	_, err := st.db.ExecContext(ctx, `UPDATE sessions SET flash = ? WHERE hash = ?`, msg, hashID(s.id))
	return err
}

// noSuchUser is a hash no password matches, compared for an email that has
// no account, so the time of the answer does not say which emails have one.
var noSuchUser = sync.OnceValue(func() []byte {
	h, _ := bcrypt.GenerateFromPassword([]byte("no such user"), passwordCost)
	return h
})

// checkPassword returns the user with email and password, or nil.
func (st *store) checkPassword(ctx context.Context, email, password string) (*User, error) {
	var u User
	var hash []byte
	err := st.db.QueryRowContext(ctx, `SELECT id, handle, email, name, password_hash FROM users WHERE email = ?`,
		strings.TrimSpace(email)).Scan(&u.ID, &u.Handle, &u.Email, &u.Name, &hash)
	if errors.Is(err, sql.ErrNoRows) {
		bcrypt.CompareHashAndPassword(noSuchUser(), []byte(password))
		return nil, nil
	}
	if err != nil || bcrypt.CompareHashAndPassword(hash, []byte(password)) != nil {
		return nil, err
	}
	return &u, nil
}

// userByHandle returns the user whose public page is handle, or nil.
func (st *store) userByHandle(ctx context.Context, handle string) (*User, error) {
	u := User{Handle: handle}
	err := st.db.QueryRowContext(ctx, `SELECT id, email, name FROM users WHERE handle = ?`, handle).Scan(&u.ID, &u.Email, &u.Name)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, nil
	}
	return &u, err
}

// A filter picks some of a user's links; its zero value picks them all.
type filter struct {
	ID         int64  // only this one
	Tag        string // only those with this tag
	Unread     bool   // only those not read yet
	PublicOnly bool   // only those not private
}

// links returns the links of user uid that f picks, newest first.
func (st *store) links(ctx context.Context, uid int64, f filter) ([]Link, error) {
	rows, err := st.db.QueryContext(ctx, `
		SELECT l.id, l.url, l.title, l.read, l.private, l.created,
			(SELECT COALESCE(group_concat(tag, ' '), '') FROM (SELECT tag FROM tags WHERE link_id = l.id ORDER BY tag))
		FROM links l
		WHERE l.user_id = ?1 AND (?2 = 0 OR l.id = ?2) AND (NOT ?3 OR l.read = 0) AND (NOT ?4 OR l.private = 0)
			AND (?5 = '' OR EXISTS (SELECT 1 FROM tags t WHERE t.link_id = l.id AND t.tag = ?5))
		ORDER BY l.created DESC, l.id DESC`, uid, f.ID, f.Unread, f.PublicOnly, f.Tag)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var links []Link
	for rows.Next() {
		var l Link
		var created int64
		var tags string
		if err := rows.Scan(&l.ID, &l.URL, &l.Title, &l.Read, &l.Private, &created, &tags); err != nil {
			return nil, err
		}
		l.Created, l.Tags = time.Unix(created, 0), strings.Fields(tags)
		links = append(links, l)
	}
	return links, rows.Err()
}

// link returns user uid's link id, or errNotFound.
func (st *store) link(ctx context.Context, uid, id int64) (Link, error) {
	links, err := st.links(ctx, uid, filter{ID: id})
	if err != nil || len(links) == 0 {
		return Link{}, orNotFound(err)
	}
	return links[0], nil
}

// orNotFound returns err, or errNotFound when err is nil.
func orNotFound(err error) error {
	if err != nil {
		return err
	}
	return errNotFound
}

// A tagCount is one of a user's tags and how many links have it.
type tagCount struct {
	Tag   string `json:"tag"`
	Count int    `json:"count"`
}

// tags returns the tags of user uid's links, by name.
func (st *store) tags(ctx context.Context, uid int64) ([]tagCount, error) {
	rows, err := st.db.QueryContext(ctx, `SELECT t.tag, count(*) FROM tags t JOIN links l ON l.id = t.link_id
		WHERE l.user_id = ? GROUP BY t.tag ORDER BY t.tag`, uid)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var tags []tagCount
	for rows.Next() {
		var t tagCount
		if err := rows.Scan(&t.Tag, &t.Count); err != nil {
			return nil, err
		}
		tags = append(tags, t)
	}
	return tags, rows.Err()
}

// unread counts user uid's links not read yet.
func (st *store) unread(ctx context.Context, uid int64) (int, error) {
	var n int
	err := st.db.QueryRowContext(ctx, `SELECT count(*) FROM links WHERE user_id = ? AND read = 0`, uid).Scan(&n)
	return n, err
}

// addLink saves l as user uid's and returns its id.
func (st *store) addLink(ctx context.Context, uid int64, l Link) (int64, error) {
	err := st.write(ctx, func(tx *sql.Tx) error {
		err := tx.QueryRowContext(ctx, `INSERT INTO links (user_id, url, title, private, created) VALUES (?, ?, ?, ?, ?) RETURNING id`,
			uid, l.URL, l.Title, l.Private, time.Now().Unix()).Scan(&l.ID)
		if err != nil {
			return err
		}
		return setTags(ctx, tx, l.ID, l.Tags)
	})
	return l.ID, err
}

// updateLink changes the title, tags and privacy of user uid's link l.ID.
func (st *store) updateLink(ctx context.Context, uid int64, l Link) error {
	return st.write(ctx, func(tx *sql.Tx) error {
		res, err := tx.ExecContext(ctx, `UPDATE links SET title = ?, private = ? WHERE id = ? AND user_id = ?`, l.Title, l.Private, l.ID, uid)
		if err := affected(res, err); err != nil {
			return err
		}
		if _, err := tx.ExecContext(ctx, `DELETE FROM tags WHERE link_id = ?`, l.ID); err != nil {
			return err
		}
		return setTags(ctx, tx, l.ID, l.Tags)
	})
}

func setTags(ctx context.Context, tx *sql.Tx, id int64, tags []string) error {
	for _, t := range tags {
		if _, err := tx.ExecContext(ctx, `INSERT INTO tags (link_id, tag) VALUES (?, ?)`, id, t); err != nil {
			return err
		}
	}
	return nil
}

// setRead marks user uid's link id read or not.
func (st *store) setRead(ctx context.Context, uid, id int64, read bool) error {
	return affected(st.db.ExecContext(ctx, `UPDATE links SET read = ? WHERE id = ? AND user_id = ?`, read, id, uid))
}

func (st *store) deleteLink(ctx context.Context, uid, id int64) error {
	return affected(st.db.ExecContext(ctx, `DELETE FROM links WHERE id = ? AND user_id = ?`, id, uid))
}

// affected returns err, or errNotFound when the statement changed no row.
func affected(res sql.Result, err error) error {
	if err != nil {
		return err
	}
	if n, err := res.RowsAffected(); err != nil || n == 0 {
		return orNotFound(err)
	}
	return nil
}
