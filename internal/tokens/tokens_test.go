package tokens_test

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/affordances/affordances-go/internal/tokens"
)

// TestFileModes: the file is 0600 in a directory it makes 0700; a
// directory that was there it leaves as it is, and one others may write
// to (as /tmp) it refuses; Remove forgets an entry.
func TestFileModes(t *testing.T) {
	shared := filepath.Join(t.TempDir(), "shared")
	if err := os.Mkdir(shared, 0o777); err != nil || os.Chmod(shared, 0o777) != nil {
		t.Fatal(err)
	}
	if err := (&tokens.File{Path: filepath.Join(shared, "tokens.json")}).Put("https://shop.example", &tokens.SignIn{AccessToken: "a"}); err == nil {
		t.Error("a file in a directory others may write to: got no error")
	}
	existing := filepath.Join(t.TempDir(), "home")
	if err := os.Mkdir(existing, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := (&tokens.File{Path: filepath.Join(existing, "tokens.json")}).Put("https://shop.example", &tokens.SignIn{AccessToken: "a"}); err != nil {
		t.Fatal(err)
	}
	if fi, err := os.Stat(existing); err != nil || fi.Mode().Perm() != 0o755 {
		t.Errorf("a directory that was there: %v, got mode %v, want it left 0755", err, fi.Mode().Perm())
	}
	dir := filepath.Join(t.TempDir(), "affordances")
	f := &tokens.File{Path: filepath.Join(dir, "tokens.json")}
	if err := f.Put("https://shop.example", &tokens.SignIn{AccessToken: "a", RefreshToken: "r"}); err != nil {
		t.Fatal(err)
	}
	if fi, err := os.Stat(f.Path); err != nil || fi.Mode().Perm() != 0o600 {
		t.Errorf("the file: %v, got mode %v, want 0600", err, fi.Mode().Perm())
	}
	if fi, err := os.Stat(dir); err != nil || fi.Mode().Perm() != 0o700 {
		t.Errorf("its directory: %v, got mode %v, want 0700", err, fi.Mode().Perm())
	}
	if s, err := f.Get("https://shop.example"); err != nil || s == nil || s.RefreshToken != "r" {
		t.Errorf("Get: got %+v, %v", s, err)
	}
	if old, err := f.Remove("https://shop.example"); err != nil || old == nil {
		t.Errorf("Remove: got %+v, %v", old, err)
	}
	if s, err := f.Get("https://shop.example"); err != nil || s != nil {
		t.Errorf("Get after Remove: got %+v, %v, want nothing", s, err)
	}
	entries, _ := os.ReadDir(dir)
	if len(entries) != 1 {
		t.Errorf("the directory holds %d files, want only tokens.json (no temporary file, no lock)", len(entries))
	}
	os.WriteFile(f.Path, []byte("{not json"), 0o600)
	if _, err := f.Get("https://shop.example"); err == nil {
		t.Error("a file that is not JSON: got no error")
	}
}

// tokenServer is a token endpoint that rotates refresh tokens and refuses
// one used twice; refreshes counts the refreshes it granted.
type tokenServer struct {
	mu        sync.Mutex
	n         int
	spent     map[string]bool
	refreshes int
}

func (ts *tokenServer) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	ts.mu.Lock()
	defer ts.mu.Unlock()
	rt := r.PostFormValue("refresh_token")
	w.Header().Set("Content-Type", "application/json")
	if r.PostFormValue("grant_type") != "refresh_token" || ts.spent[rt] {
		w.WriteHeader(http.StatusBadRequest)
		fmt.Fprint(w, `{"error":"invalid_grant"}`)
		return
	}
	ts.spent[rt] = true
	ts.n++
	ts.refreshes++
	json.NewEncoder(w).Encode(map[string]any{"access_token": fmt.Sprintf("at%d", ts.n), "refresh_token": fmt.Sprintf("rt%d", ts.n),
		"token_type": "Bearer", "expires_in": 600, "scope": "safe user"})
}

// TestTransport: requests to the site carry its token and no other's do;
// an expired token is refreshed once for many concurrent requests, and
// the rotated refresh token is kept; a 401 is refreshed once; a refusal
// ends the sign-in and says to sign in again.
func TestTransport(t *testing.T) {
	ts := &tokenServer{spent: map[string]bool{}}
	auth := httptest.NewServer(ts)
	t.Cleanup(auth.Close)
	var mu sync.Mutex
	seen := map[string][]string{}
	site := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		defer mu.Unlock()
		h := r.Header.Get("Authorization")
		seen["site"] = append(seen["site"], h)
		if tok, _ := strings.CutPrefix(h, "Bearer "); !strings.HasPrefix(tok, "at") {
			w.WriteHeader(http.StatusUnauthorized)
		}
	}))
	t.Cleanup(site.Close)
	other := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		defer mu.Unlock()
		seen["other"] = append(seen["other"], r.Header.Get("Authorization"))
	}))
	t.Cleanup(other.Close)

	f := &tokens.File{Path: filepath.Join(t.TempDir(), "tokens.json")}
	s := &tokens.SignIn{ClientID: "cli", TokenEndpoint: auth.URL, AccessToken: "old", RefreshToken: "rt0", Expiry: time.Now().Add(-time.Minute)}
	if err := f.Put(site.URL, s); err != nil {
		t.Fatal(err)
	}
	tr := tokens.NewTransport(f, site.URL, s, nil)
	hc := &http.Client{Transport: tr}

	var wg sync.WaitGroup
	for range 8 {
		wg.Go(func() {
			res, err := hc.Get(site.URL + "/")
			if err != nil || res.StatusCode != 200 {
				t.Errorf("GET the site: %v %v", res, err)
				return
			}
			res.Body.Close()
		})
	}
	wg.Wait()
	if res, err := hc.Get(other.URL + "/"); err == nil {
		res.Body.Close()
	}
	if ts.refreshes != 1 {
		t.Errorf("8 concurrent requests with an expired token: %d refreshes, want 1", ts.refreshes)
	}
	if kept, _ := f.Get(site.URL); kept == nil || kept.RefreshToken != "rt1" || kept.AccessToken != "at1" || kept.Scope != "safe user" {
		t.Errorf("kept after refreshing: %+v, want at1, rt1 and the scope", kept)
	}
	mu.Lock()
	for _, h := range seen["site"] {
		if h != "Bearer at1" {
			t.Errorf("the site received %q, want Bearer at1", h)
		}
	}
	if len(seen["other"]) != 1 || seen["other"][0] != "" {
		t.Errorf("the other origin received %q, want one request without Authorization", seen["other"])
	}
	clear(seen)
	mu.Unlock()

	// Another command rotated the refresh token meanwhile: the transport
	// adopts its tokens rather than spend rt1 again.
	other2 := &tokens.SignIn{ClientID: "cli", TokenEndpoint: auth.URL, AccessToken: "at9", RefreshToken: "rt9", Expiry: time.Now().Add(time.Hour)}
	if err := f.Put(site.URL, other2); err != nil {
		t.Fatal(err)
	}
	if tok, err := tr.Token(t.Context()); err != nil || tok != "at1" {
		t.Errorf("Token: got %q, %v, want at1, still good", tok, err)
	}

	// The site refuses the token: the transport looks again, and takes
	// the one another command kept (at9) without spending a refresh.
	trStale := tokens.NewTransport(f, site.URL, &tokens.SignIn{AccessToken: "revoked", RefreshToken: "rt1", Expiry: time.Now().Add(time.Hour)}, nil)
	res, err := (&http.Client{Transport: trStale}).Post(site.URL+"/", "application/json", strings.NewReader(`{}`))
	if err != nil || res.StatusCode != 200 {
		t.Fatalf("POST with a refused token: %v %v, want 200 after adopting the kept at9", res, err)
	}
	res.Body.Close()
	if ts.refreshes != 1 {
		t.Errorf("a 401 while another command had refreshed: %d refreshes, want still 1", ts.refreshes)
	}

	// The grant ended: refreshing is refused, the sign-in ended.
	f.Put(site.URL, &tokens.SignIn{ClientID: "cli", TokenEndpoint: auth.URL, AccessToken: "x", RefreshToken: "rt0", Expiry: time.Now().Add(-time.Minute)})
	ended := tokens.NewTransport(f, site.URL, &tokens.SignIn{AccessToken: "x", RefreshToken: "rt0", Expiry: time.Now().Add(-time.Minute)}, nil)
	_, err = ended.Token(t.Context())
	var ee *tokens.EndedError
	if !errors.As(err, &ee) || !strings.Contains(err.Error(), "run affordances login "+site.URL+" again") || strings.Contains(err.Error(), "rt0") {
		t.Errorf("refreshing a spent refresh token: got %v, want the sign-in ended, without the token", err)
	}
	if ended.Ended() == nil {
		t.Error("Ended: got nil after a refused refresh")
	}
}
