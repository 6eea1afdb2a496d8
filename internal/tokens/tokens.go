// Package tokens keeps the sign-ins of "affordances login": per site
// origin, the OAuth tokens the site's authorization server granted the
// command line, in a file only the person can read (0600, in a directory
// 0700), written atomically (a temporary file renamed over it) and under
// a lock, so that two commands refreshing at once do not lose a rotated
// refresh token. A [Transport] sends a site's token to that site alone,
// refreshing it as it expires; nothing here prints or logs a token.
package tokens

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"time"
)

// FileEnv names the environment variable that puts the file elsewhere
// than [DefaultPath] (tests, a second account).
const FileEnv = "AFFORDANCES_TOKEN_FILE"

// A SignIn is what login kept for one site: where its tokens come from
// and the tokens themselves.
type SignIn struct {
	// Issuer is the authorization server's issuer; ClientID the client
	// it registered the command line as; TokenEndpoint and
	// RevocationEndpoint its endpoints, from its metadata.
	Issuer             string `json:"issuer"`
	ClientID           string `json:"client_id"`
	TokenEndpoint      string `json:"token_endpoint"`
	RevocationEndpoint string `json:"revocation_endpoint,omitempty"`
	// Resource is what the tokens are for (RFC 8707): the site's origin.
	Resource string `json:"resource"`
	// Scope is what the person granted, as the server said it.
	Scope        string    `json:"scope,omitempty"`
	AccessToken  string    `json:"access_token"`
	RefreshToken string    `json:"refresh_token,omitempty"`
	Expiry       time.Time `json:"expiry,omitzero"`
	// Created is when the person signed in.
	Created time.Time `json:"created"`
}

// A File is the file of sign-ins at Path. Its methods are safe for
// concurrent use, by goroutines and by processes: each change reads the
// file, changes it and writes it back under a lock.
type File struct {
	Path string
}

// DefaultPath is where sign-ins are kept: tokens.json in the directory
// affordances of the user's configuration directory
// (os.UserConfigDir: ~/.config on Linux).
func DefaultPath() (string, error) {
	dir, err := os.UserConfigDir()
	if err != nil {
		return "", fmt.Errorf("tokens: no configuration directory to keep sign-ins in: %w", err)
	}
	return filepath.Join(dir, "affordances", "tokens.json"), nil
}

// document is the file's JSON.
type document struct {
	Version int                `json:"version"`
	Sites   map[string]*SignIn `json:"sites"`
}

// Get returns the sign-in kept for origin, or nil when there is none.
func (f *File) Get(origin string) (*SignIn, error) {
	d, err := f.read()
	if err != nil {
		return nil, err
	}
	return d.Sites[origin], nil
}

// Put keeps s as origin's sign-in, replacing any other.
func (f *File) Put(origin string, s *SignIn) error {
	return f.update(func(d *document) (bool, error) {
		d.Sites[origin] = s
		return true, nil
	})
}

// Remove forgets origin's sign-in and returns it, nil when there was none.
func (f *File) Remove(origin string) (*SignIn, error) {
	var old *SignIn
	err := f.update(func(d *document) (bool, error) {
		old = d.Sites[origin]
		delete(d.Sites, origin)
		return old != nil, nil
	})
	return old, err
}

// read reads the file; a file that does not exist is empty.
func (f *File) read() (*document, error) {
	d := &document{Version: 1, Sites: map[string]*SignIn{}}
	b, err := os.ReadFile(f.Path)
	if errors.Is(err, fs.ErrNotExist) {
		return d, nil
	}
	if err != nil {
		return nil, fmt.Errorf("tokens: reading %s: %w", f.Path, err)
	}
	if err := json.Unmarshal(b, d); err != nil {
		return nil, fmt.Errorf("tokens: %s is not a file of sign-ins: %v", f.Path, err)
	}
	if d.Sites == nil {
		d.Sites = map[string]*SignIn{}
	}
	return d, nil
}

// update applies change to the file under its lock, and writes it back
// when change says it changed it.
func (f *File) update(change func(*document) (bool, error)) error {
	unlock, err := f.lock()
	if err != nil {
		return err
	}
	defer unlock()
	d, err := f.read()
	if err != nil {
		return err
	}
	changed, err := change(d)
	if err != nil || !changed {
		return err
	}
	return f.write(d)
}

// write replaces the file with d: a temporary file of mode 0600 in the
// same directory, synced, then renamed over it.
func (f *File) write(d *document) error {
	b, err := json.MarshalIndent(d, "", "  ")
	if err != nil {
		return err
	}
	dir := filepath.Dir(f.Path)
	tmp, err := os.CreateTemp(dir, ".tokens-*.json") // mode 0600
	if err != nil {
		return fmt.Errorf("tokens: writing %s: %w", f.Path, err)
	}
	defer os.Remove(tmp.Name()) // after a rename, nothing is there
	if err := tmp.Chmod(0o600); err != nil {
		tmp.Close()
		return fmt.Errorf("tokens: writing %s: %w", f.Path, err)
	}
	if _, err := tmp.Write(append(b, '\n')); err != nil {
		tmp.Close()
		return fmt.Errorf("tokens: writing %s: %w", f.Path, err)
	}
	if err := tmp.Sync(); err != nil {
		tmp.Close()
		return fmt.Errorf("tokens: writing %s: %w", f.Path, err)
	}
	if err := tmp.Close(); err != nil {
		return fmt.Errorf("tokens: writing %s: %w", f.Path, err)
	}
	if err := os.Rename(tmp.Name(), f.Path); err != nil {
		return fmt.Errorf("tokens: writing %s: %w", f.Path, err)
	}
	return nil
}

// Lock timing: how long to wait for another process's lock, and when a
// lock is old enough to be a crashed process's.
const (
	lockWait  = 10 * time.Second
	lockStale = time.Minute
)

// lock takes the file's lock, a file beside it created exclusively, and
// makes its directory (0700) first. It returns the function that frees it.
func (f *File) lock() (unlock func(), err error) {
	dir := filepath.Dir(f.Path)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, fmt.Errorf("tokens: making %s: %w", dir, err)
	}
	// A directory others may write to (/tmp) would let them swap the
	// file or its lock: refuse it, rather than change a directory that
	// is not the person's own.
	if fi, err := os.Stat(dir); err != nil {
		return nil, fmt.Errorf("tokens: %s: %w", dir, err)
	} else if fi.Mode().Perm()&0o022 != 0 {
		return nil, fmt.Errorf("tokens: %s may be written by others (%v): keep sign-ins in a directory only you can write to", dir, fi.Mode().Perm())
	}
	name := f.Path + ".lock"
	deadline := time.Now().Add(lockWait)
	for {
		l, err := os.OpenFile(name, os.O_CREATE|os.O_EXCL|os.O_WRONLY, 0o600)
		if err == nil {
			l.Close()
			return func() { os.Remove(name) }, nil
		}
		if !errors.Is(err, fs.ErrExist) {
			return nil, fmt.Errorf("tokens: locking %s: %w", f.Path, err)
		}
		if fi, err := os.Stat(name); err == nil && time.Since(fi.ModTime()) > lockStale {
			os.Remove(name)
			continue
		}
		if time.Now().After(deadline) {
			return nil, fmt.Errorf("tokens: %s is locked by another affordances command (remove %s if none runs)", f.Path, name)
		}
		time.Sleep(20 * time.Millisecond)
	}
}
