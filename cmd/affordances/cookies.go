package main

import (
	"bufio"
	"bytes"
	"fmt"
	"net"
	"net/http"
	"net/http/cookiejar"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"
)

// A cookieFile is a Netscape cookie file (the format curl reads with -b
// and writes with -c) used as an http.CookieJar: read at start, kept in a
// net/http/cookiejar.Jar that decides which cookies go where, and written
// back by save with every cookie the site set meanwhile. It is safe for
// concurrent use.
//
// One line per cookie, seven fields separated by tabs:
//
//	domain  include-subdomains  path  secure  expires  name  value
//
// domain starts with "." when include-subdomains is TRUE; expires is a
// Unix time, 0 for a session cookie; a line starting with "#HttpOnly_" is
// an HttpOnly cookie, other lines starting with "#" are comments.
type cookieFile struct {
	path string
	jar  *cookiejar.Jar
	now  func() time.Time

	mu      sync.Mutex
	entries []cookieEntry // in file order, then in the order they were set
	dirty   bool
}

// A cookieEntry is one line of a cookie file.
type cookieEntry struct {
	Domain     string // without the leading "."
	Subdomains bool
	Path       string
	Secure     bool
	HTTPOnly   bool
	Expires    int64 // Unix seconds; 0: a session cookie
	Name       string
	Value      string
}

func (c cookieEntry) same(d cookieEntry) bool {
	return c.Domain == d.Domain && c.Path == d.Path && c.Name == d.Name
}

// loadCookieFile reads the cookie file at path; a file that does not exist
// yet is an empty jar, created by save.
func loadCookieFile(path string) (*cookieFile, error) {
	jar, err := cookiejar.New(nil)
	if err != nil {
		return nil, err
	}
	f := &cookieFile{path: path, jar: jar, now: time.Now}
	data, err := os.ReadFile(path)
	switch {
	case os.IsNotExist(err):
		return f, nil
	case err != nil:
		return nil, err
	}
	entries, err := parseCookieFile(data)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	now := f.now().Unix()
	for _, c := range entries {
		if c.Expires != 0 && c.Expires <= now {
			continue
		}
		f.entries = append(f.entries, c)
		u := &url.URL{Scheme: "http", Host: c.Domain, Path: c.Path}
		if c.Secure {
			u.Scheme = "https"
		}
		hc := &http.Cookie{Name: c.Name, Value: c.Value, Path: c.Path, Secure: c.Secure, HttpOnly: c.HTTPOnly}
		if c.Subdomains {
			hc.Domain = c.Domain
		}
		if c.Expires != 0 {
			hc.Expires = time.Unix(c.Expires, 0)
		}
		jar.SetCookies(u, []*http.Cookie{hc})
	}
	return f, nil
}

// parseCookieFile reads the lines of a Netscape cookie file.
func parseCookieFile(data []byte) ([]cookieEntry, error) {
	var out []cookieEntry
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(make([]byte, 0, 64<<10), 1<<20)
	for n := 1; sc.Scan(); n++ {
		line := strings.TrimRight(sc.Text(), "\r")
		httpOnly := false
		if rest, ok := strings.CutPrefix(line, "#HttpOnly_"); ok {
			line, httpOnly = rest, true
		} else if strings.HasPrefix(line, "#") || strings.TrimSpace(line) == "" {
			continue
		}
		f := strings.Split(line, "\t")
		if len(f) == 6 { // a cookie with an empty value, written without its tab
			f = append(f, "")
		}
		if len(f) != 7 {
			return nil, fmt.Errorf("line %d: want 7 fields separated by tabs (domain, include-subdomains, path, secure, expires, name, value), got %d", n, len(f))
		}
		exp, err := strconv.ParseInt(f[4], 10, 64)
		if err != nil || exp < 0 {
			return nil, fmt.Errorf("line %d: expires %q is not a Unix time", n, f[4])
		}
		domain := strings.ToLower(f[0])
		c := cookieEntry{
			Domain:     strings.TrimPrefix(domain, "."),
			Subdomains: strings.EqualFold(f[1], "TRUE"),
			Path:       f[2],
			Secure:     strings.EqualFold(f[3], "TRUE"),
			HTTPOnly:   httpOnly,
			Expires:    exp,
			Name:       f[5],
			Value:      f[6],
		}
		if c.Domain == "" || c.Name == "" {
			return nil, fmt.Errorf("line %d: a cookie needs a domain and a name", n)
		}
		if c.Path == "" {
			c.Path = "/"
		}
		out = append(out, c)
	}
	return out, sc.Err()
}

// Cookies implements http.CookieJar.
func (f *cookieFile) Cookies(u *url.URL) []*http.Cookie { return f.jar.Cookies(u) }

// SetCookies implements http.CookieJar: the jar takes the cookies, and the
// file's entries follow, a cookie that expires removing its line.
func (f *cookieFile) SetCookies(u *url.URL, cookies []*http.Cookie) {
	f.jar.SetCookies(u, cookies)
	f.mu.Lock()
	defer f.mu.Unlock()
	host := strings.ToLower(u.Hostname())
	now := f.now()
	for _, hc := range cookies {
		c := cookieEntry{Domain: host, Path: hc.Path, Secure: hc.Secure, HTTPOnly: hc.HttpOnly, Name: hc.Name, Value: hc.Value}
		if d := strings.TrimPrefix(strings.ToLower(hc.Domain), "."); d != "" {
			ip := net.ParseIP(host) != nil
			if d != host && (ip || !strings.HasSuffix(host, "."+d)) {
				continue // the jar refuses a cookie for another site
			}
			c.Domain, c.Subdomains = d, !ip // an IP address has no subdomains
		}
		if !strings.HasPrefix(c.Path, "/") {
			c.Path = defaultCookiePath(u.Path)
		}
		gone := false
		switch {
		case hc.MaxAge < 0:
			gone = true
		case hc.MaxAge > 0:
			c.Expires = now.Add(time.Duration(hc.MaxAge) * time.Second).Unix()
		case !hc.Expires.IsZero():
			gone = !hc.Expires.After(now)
			c.Expires = hc.Expires.Unix()
		}
		f.dirty = true
		kept := f.entries[:0]
		for _, e := range f.entries {
			if !e.same(c) {
				kept = append(kept, e)
			}
		}
		f.entries = kept
		if !gone {
			f.entries = append(f.entries, c)
		}
	}
}

// defaultCookiePath is RFC 6265's default path of a cookie set by a
// response to a request for path.
func defaultCookiePath(path string) string {
	i := strings.LastIndex(path, "/")
	if i <= 0 {
		return "/"
	}
	return path[:i]
}

// save writes the file back when it existed or a cookie was set, through a
// temporary file renamed over it, readable by its owner only.
func (f *cookieFile) save() error {
	f.mu.Lock()
	defer f.mu.Unlock()
	if _, err := os.Stat(f.path); err != nil && !f.dirty {
		return nil
	}
	var b bytes.Buffer
	b.WriteString("# Netscape HTTP Cookie File\n# Written by affordances; curl -b and -c read and write this format.\n\n")
	now := f.now().Unix()
	for _, c := range f.entries {
		if c.Expires != 0 && c.Expires <= now {
			continue
		}
		b.WriteString(c.line())
	}
	tmp, err := os.CreateTemp(filepath.Dir(f.path), ".cookies-*")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name())
	if _, err := tmp.Write(b.Bytes()); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	return os.Rename(tmp.Name(), f.path)
}

// line writes c as a cookie file line, as curl does.
func (c cookieEntry) line() string {
	domain := c.Domain
	if c.Subdomains {
		domain = "." + domain
	}
	if c.HTTPOnly {
		domain = "#HttpOnly_" + domain
	}
	upper := func(b bool) string {
		if b {
			return "TRUE"
		}
		return "FALSE"
	}
	return strings.Join([]string{domain, upper(c.Subdomains), c.Path, upper(c.Secure), strconv.FormatInt(c.Expires, 10), c.Name, c.Value}, "\t") + "\n"
}

// siteCookies returns the cookies the Netscape cookie file at path holds
// for the site at rawURL, whatever their Path (a site under /app/ scopes
// its session cookie to it), each name once, the most specific path's;
// none when path is empty.
func siteCookies(path, rawURL string) ([]*http.Cookie, error) {
	if path == "" {
		return nil, nil
	}
	jar, err := loadCookieFile(path)
	if err != nil {
		return nil, usagef("--cookie-jar: %v", err)
	}
	u, err := url.Parse(rawURL)
	if err != nil {
		return nil, usagef("%q is not a URL", rawURL)
	}
	var cookies []*http.Cookie
	seen := map[string]bool{}
	paths := []string{"/"}
	for _, e := range jar.entries {
		paths = append(paths, e.Path)
	}
	slices.SortFunc(paths, func(a, b string) int { return len(b) - len(a) }) // the most specific first
	for _, p := range paths {
		for _, c := range jar.jar.Cookies(&url.URL{Scheme: u.Scheme, Host: u.Host, Path: p}) {
			if !seen[c.Name] {
				seen[c.Name] = true
				cookies = append(cookies, c)
			}
		}
	}
	if len(cookies) == 0 {
		return nil, usagef("--cookie-jar: %s holds no cookie for %s", path, u.Host)
	}
	return cookies, nil
}
