// Package weborigin serialises web origins (RFC 6454), the one way the
// library's origin rule, its client and the AAL gate compare them.
package weborigin

import (
	"errors"
	"fmt"
	"net/url"
	"strconv"
	"strings"
	"unicode/utf8"

	"golang.org/x/net/idna"
)

// Parse returns the ASCII serialisation of s, which must be an origin:
// http or https, a host and an optional port, with nothing after but an
// optional "/" (a browser's Origin header, a configured origin). See [Of]
// for the serialisation. The error says what s lacks or has too much of,
// without quoting s.
func Parse(s string) (string, error) {
	u, err := parse(s)
	if err != nil {
		return "", err
	}
	if u.User != nil || (u.Path != "" && u.Path != "/") || u.RawQuery != "" || u.ForceQuery || u.Fragment != "" {
		return "", errors.New("it has more than a scheme, a host and a port")
	}
	return serialize(u)
}

// Of returns the ASCII serialisation of the origin of an http or https URL
// (RFC 6454 sections 4 and 6.2): the scheme and the host in lower case
// (ASCII letters only, as i;ascii-casemap folds them; a host with other
// letters is first converted to its A-labels, "bücher.example" is
// "xn--bcher-kva.example"), an IPv6 host in brackets, and the port in base
// ten, left out when it is the scheme's default (80, 443). Userinfo, path,
// query and fragment are not part of an origin. A URL of another scheme, or
// without a host, has no origin this package compares: the error says so.
func Of(rawURL string) (string, error) {
	u, err := parse(rawURL)
	if err != nil {
		return "", err
	}
	return serialize(u)
}

func parse(s string) (*url.URL, error) {
	u, err := url.Parse(s)
	if err != nil {
		return nil, errors.New("it is not a URL")
	}
	if scheme := strings.ToLower(u.Scheme); scheme != "http" && scheme != "https" {
		if u.Scheme == "" {
			return nil, errors.New("it has no scheme; an origin's is http or https")
		}
		return nil, fmt.Errorf("its scheme is %s; an origin's is http or https", u.Scheme) // a scheme has only letters, digits, +, - and .
	}
	if u.Host == "" || u.Hostname() == "" {
		return nil, errors.New("it has no host")
	}
	return u, nil
}

func serialize(u *url.URL) (string, error) {
	scheme := strings.ToLower(u.Scheme)
	host := u.Hostname()
	if isASCII(host) {
		host = asciiLower(host)
	} else {
		a, err := idna.Lookup.ToASCII(host)
		if err != nil {
			return "", errors.New("its host is not a valid domain name")
		}
		host = a
	}
	if strings.Contains(host, ":") {
		host = "[" + host + "]"
	}
	if p := u.Port(); p != "" {
		n, err := strconv.ParseUint(p, 10, 16)
		if err != nil || n == 0 {
			return "", errors.New("its port is not a number from 1 to 65535")
		}
		if !(scheme == "http" && n == 80) && !(scheme == "https" && n == 443) {
			host += ":" + strconv.FormatUint(n, 10)
		}
	}
	return scheme + "://" + host, nil
}

func isASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= utf8.RuneSelf {
			return false
		}
	}
	return true
}

func asciiLower(s string) string {
	for i := 0; i < len(s); i++ {
		if 'A' <= s[i] && s[i] <= 'Z' {
			return strings.ToLower(s) // ASCII only: strings.ToLower of ASCII is ASCII
		}
	}
	return s
}

// Host returns the host (and port) of the URL s, for a person to read:
// "shop.example" of "https://shop.example/x"; s itself when it has none.
func Host(s string) string {
	if u, err := url.Parse(s); err == nil && u.Host != "" {
		return u.Host
	}
	return s
}
