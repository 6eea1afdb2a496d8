package main

import (
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

// TestCookieJarRoundTrip: signIn through call --cookie-jar writes the
// session to a Netscape cookie file; inspect --cookie-jar then shows alice
// signed in, and a cookie call (which must carry the site's Origin) adds to
// her cart. curl reads the file, and a file curl wrote works the same way
// (issue 4, CLI).
func TestCookieJarRoundTrip(t *testing.T) {
	demo := startDemo(t, "jar-token")
	jar := filepath.Join(t.TempDir(), "jar.txt")
	signIn := `{"email":"alice@example.com","password":"alice"}`

	code, out, errOut := cli(t, nil, "call", "--cookie-jar", jar, demo+"/login", "signIn", signIn)
	if code != exitOK || !strings.Contains(out, "message:  Signed in as alice@example.com.") {
		t.Fatalf("signIn: exit %d, want 0\n%s%s", code, out, errOut)
	}
	data, err := os.ReadFile(jar)
	if err != nil || !strings.Contains(string(data), "\tsid\t") || !strings.HasPrefix(string(data), "# Netscape HTTP Cookie File") {
		t.Fatalf("the cookie file: %v\n%s", err, data)
	}
	if fi, _ := os.Stat(jar); fi.Mode().Perm() != 0o600 {
		t.Errorf("the cookie file's mode: got %v, want 0600", fi.Mode().Perm())
	}

	code, out, errOut = cli(t, nil, "inspect", "--cookie-jar", jar, demo+"/login")
	if code != exitOK || !strings.Contains(out, "signedIn: true") || !strings.Contains(out, "email: alice@example.com") {
		t.Errorf("inspect --cookie-jar /login: exit %d, want alice signed in\n%s%s", code, out, errOut)
	}
	// $AFFORDANCES_TOKEN is not used with --cookie-jar: the cookie speaks.
	code, out, errOut = cli(t, map[string]string{tokenEnv: "wrong"}, "call", "--cookie-jar", jar, demo+"/products/canvas-tote", "addToCart", `{"sku":"TOTE-NAT"}`)
	if code != exitOK || !strings.Contains(out, `cart = {"count":1`) {
		t.Errorf("a cookie call: exit %d, want 0 and one item in the cart\n%s%s", code, out, errOut)
	}

	if _, err := exec.LookPath("curl"); err != nil {
		if os.Getenv("AFFORDANCES_CHECK") != "" {
			t.Fatal("curl is not installed: make check should have installed it (make deps)")
		}
		t.Skip("curl is not installed; the rest checks that curl and affordances share the file")
	}
	got, err := exec.Command("curl", "-s", "-b", jar, demo+"/login?affordances=1").Output()
	if err != nil || !strings.Contains(string(got), `"signedIn":true`) {
		t.Errorf("curl -b with the file affordances wrote: %v\n%s", err, got)
	}
	curlJar := filepath.Join(t.TempDir(), "curl-jar.txt")
	got, err = exec.Command("curl", "-s", "-c", curlJar, "-H", "Content-Type: application/vnd.affordances+json",
		"-H", "Origin: "+demo, "-d", `{"action":"signIn","input":`+signIn+`}`, demo+"/login").Output()
	if err != nil || !strings.Contains(string(got), `"ok":true`) {
		t.Fatalf("curl -c signIn: %v\n%s", err, got)
	}
	code, out, errOut = cli(t, nil, "inspect", "--cookie-jar", curlJar, demo+"/login")
	if code != exitOK || !strings.Contains(out, "signedIn: true") {
		t.Errorf("inspect --cookie-jar with the file curl wrote: exit %d, want alice signed in\n%s%s", code, out, errOut)
	}
}

// TestCookieFile: the reader takes what curl writes (comments, #HttpOnly_,
// domain cookies, session cookies, an empty value) and drops expired
// cookies; cookies the site sets or expires are written back.
func TestCookieFile(t *testing.T) {
	now := time.Now()
	future := now.Add(time.Hour).Unix()
	path := filepath.Join(t.TempDir(), "jar")
	file := "# Netscape HTTP Cookie File\n# a comment\n\n" +
		"#HttpOnly_shop.example\tFALSE\t/\tFALSE\t0\tsid\tabc\n" +
		".example.org\tTRUE\t/\tTRUE\t" + strconv.FormatInt(future, 10) + "\tpref\tdark\n" +
		"shop.example\tFALSE\t/cart\tFALSE\t1\told\tgone\n" +
		"shop.example\tFALSE\t/\tFALSE\t0\tempty\t\n"
	if err := os.WriteFile(path, []byte(file), 0o600); err != nil {
		t.Fatal(err)
	}
	f, err := loadCookieFile(path)
	if err != nil {
		t.Fatal(err)
	}
	names := func(u string) string {
		pu, _ := url.Parse(u)
		var s []string
		for _, c := range f.Cookies(pu) {
			s = append(s, c.Name+"="+c.Value)
		}
		return strings.Join(s, " ")
	}
	for _, tc := range []struct{ url, want string }{
		{"http://shop.example/cart", "sid=abc empty="},
		{"https://www.example.org/", "pref=dark"},
		{"http://www.example.org/", ""}, // secure
		{"http://other.example/", ""},
	} {
		if got := names(tc.url); got != tc.want {
			t.Errorf("cookies for %s: got %q, want %q", tc.url, got, tc.want)
		}
	}

	u, _ := url.Parse("http://shop.example/login")
	f.SetCookies(u, []*http.Cookie{
		{Name: "sid", Value: "new", Path: "/", HttpOnly: true, MaxAge: 3600},
		{Name: "empty", MaxAge: -1, Path: "/"},
		{Name: "trail", Value: "1"}, // no path: the default path of /login is /
		{Name: "evil", Value: "1", Domain: "bank.example"},
	})
	if err := f.save(); err != nil {
		t.Fatal(err)
	}
	data, _ := os.ReadFile(path)
	entries, err := parseCookieFile(data)
	if err != nil {
		t.Fatalf("reading back: %v\n%s", err, data)
	}
	var lines []string
	for _, c := range entries {
		exp := "session"
		if c.Expires != 0 {
			exp = "expires"
		}
		lines = append(lines, strings.Join([]string{c.Domain, boolText(c.Subdomains), c.Path, boolText(c.HTTPOnly), exp, c.Name, c.Value}, " "))
	}
	want := []string{
		"example.org true / false expires pref dark",
		"shop.example false / true expires sid new",
		"shop.example false / false session trail 1",
	}
	if strings.Join(lines, "\n") != strings.Join(want, "\n") {
		t.Errorf("written back:\n%s\nwant:\n%s\nfile:\n%s", strings.Join(lines, "\n"), strings.Join(want, "\n"), data)
	}
}

func boolText(b bool) string {
	if b {
		return "true"
	}
	return "false"
}

// TestParseCookieFileErrors: a line that is not a cookie is a clear error.
func TestParseCookieFileErrors(t *testing.T) {
	for _, tc := range []struct{ file, want string }{
		{"just words\n", "line 1: want 7 fields"},
		{"# ok\nshop.example\tFALSE\t/\tFALSE\tsoon\tsid\tx\n", `line 2: expires "soon"`},
		{"\tFALSE\t/\tFALSE\t0\tsid\tx\n", "line 1: a cookie needs a domain and a name"},
	} {
		if _, err := parseCookieFile([]byte(tc.file)); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("parseCookieFile(%q): got %v, want an error with %q", tc.file, err, tc.want)
		}
	}
}

// TestLintAndConformWithACookieJar: lint and conform read a site as the
// person whose session a cookie file holds (issue 14): lint checks the
// signed-in pages' documents, conform passes, and neither sends
// $AFFORDANCES_TOKEN when given a file.
func TestLintAndConformWithACookieJar(t *testing.T) {
	demo := startDemo(t, "jar-lint-token")
	jar := filepath.Join(t.TempDir(), "jar.txt")
	if code, out, errOut := cli(t, nil, "call", "--cookie-jar", jar, demo+"/login", "signIn", `{"email":"alice@example.com","password":"alice"}`); code != exitOK {
		t.Fatalf("signIn: exit %d\n%s%s", code, out, errOut)
	}
	code, anon, _ := cli(t, nil, "lint", demo+"/cart")
	if code != exitOK {
		t.Fatalf("lint /cart anonymously: exit %d\n%s", code, anon)
	}
	code, signedIn, errOut := cli(t, map[string]string{tokenEnv: "wrong"}, "lint", "--cookie-jar", jar, demo+"/cart")
	if code != exitOK || strings.Count(signedIn, "ok ") <= strings.Count(anon, "ok ") {
		t.Errorf("lint --cookie-jar: exit %d, want 0 and more documents checked than anonymously\nsigned in:\n%s%s\nanonymous:\n%s", code, signedIn, errOut, anon)
	}
	code, out, errOut := cli(t, map[string]string{tokenEnv: "wrong"}, "conform", "--cookie-jar", jar, demo)
	if code != exitOK {
		t.Errorf("conform --cookie-jar: exit %d, want 0\n%s%s", code, out, errOut)
	}
	if code, _, errOut := cli(t, nil, "conform", "--cookie-jar", filepath.Join(t.TempDir(), "none.txt"), demo); code != exitUsage || !strings.Contains(errOut, "--cookie-jar") {
		t.Errorf("conform with a missing cookie file: exit %d, want a usage error naming the flag\n%s", code, errOut)
	}
}

// TestSiteCookiesOfAPath: a site under a path prefix scopes its session
// cookie to it (Path=/app/): the checkers still find it for the site, with
// the most specific path's value when a name is set at two (issue 27).
func TestSiteCookiesOfAPath(t *testing.T) {
	path := filepath.Join(t.TempDir(), "jar.txt")
	jar := "127.0.0.1\tFALSE\t/app/\tFALSE\t0\tsession\tinner\n" +
		"127.0.0.1\tFALSE\t/\tFALSE\t0\tsession\touter\n" +
		"127.0.0.1\tFALSE\t/\tFALSE\t0\ttheme\tdark\n" +
		"other.example\tFALSE\t/\tFALSE\t0\tsession\tnot-this-site\n"
	if err := os.WriteFile(path, []byte(jar), 0o600); err != nil {
		t.Fatal(err)
	}
	cookies, err := siteCookies(path, "http://127.0.0.1:18091")
	got := map[string]string{}
	for _, c := range cookies {
		got[c.Name] = c.Value
	}
	if err != nil || len(got) != 2 || got["session"] != "inner" || got["theme"] != "dark" {
		t.Errorf("got %v (%v), want session=inner and theme=dark", got, err)
	}
}
