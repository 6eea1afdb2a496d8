package weborigin_test

import (
	"testing"

	"github.com/affordances/affordances-go/internal/weborigin"
)

// TestParse: an origin serialises as RFC 6454 section 6.2 says. The cases
// marked "root" or "aal" are where the root package's and package aal's
// normalisers disagreed before they became this one (root refused what aal
// took, or the reverse); "both" where both broke the RFC.
func TestParse(t *testing.T) {
	for _, tc := range []struct{ in, want, err string }{
		{in: "https://shop.example", want: "https://shop.example"},
		{in: "HTTPS://Shop.Example:443/", want: "https://shop.example"},
		{in: "http://SHOP.example:80", want: "http://shop.example"},
		{in: "https://shop.example:8443", want: "https://shop.example:8443"},
		{in: "http://shop.example:443", want: "http://shop.example:443"}, // 443 is https's default, not http's
		{in: "https://shop.example:", want: "https://shop.example"},      // an empty port is the default (RFC 3986 3.2.3)
		{in: "http://[::1]:80", want: "http://[::1]"},
		{in: "http://[::1]:8080", want: "http://[::1]:8080"},
		{in: "http://127.0.0.1:8080", want: "http://127.0.0.1:8080"},
		{in: "https://xn--bcher-kva.example", want: "https://xn--bcher-kva.example"},
		{in: "ftp://shop.example", err: "its scheme is ftp; an origin's is http or https"},         // aal took it
		{in: "https://shop.example:0443", want: "https://shop.example"},                            // both: the port is a number, 0443 is 443
		{in: "http://shop.example:008080", want: "http://shop.example:8080"},                       // both kept the zeros
		{in: "https://shop.example:70000", err: "its port is not a number from 1 to 65535"},        // both took it
		{in: "https://shop.example:0", err: "its port is not a number from 1 to 65535"},            // both took it
		{in: "https://BÜCHER.example", want: "https://xn--bcher-kva.example"},                      // both: lowered to bücher, never what a browser sends
		{in: "https://\u212Aitchen.example", want: "https://kitchen.example"},                      // both: the Kelvin sign is k as a browser maps it (UTS 46), not by Unicode case
		{in: "https://a_b.example", want: "https://a_b.example"},                                   // an ASCII host is only lowered
		{in: "https://u:p@shop.example", err: "it has more than a scheme, a host and a port"},      // aal's Decide dropped userinfo
		{in: "https://shop.example/checkout", err: "it has more than a scheme, a host and a port"}, // aal's Decide dropped the path
		{in: "https://shop.example?q=1", err: "it has more than a scheme, a host and a port"},      // and the query
		{in: "https://shop.example#top", err: "it has more than a scheme, a host and a port"},      // and the fragment
		{in: "null", err: "it has no scheme; an origin's is http or https"},
		{in: "shop.example", err: "it has no scheme; an origin's is http or https"},
		{in: "https://", err: "it has no host"},
		{in: "https://:443", err: "it has no host"},
		{in: "http://shop example", err: "it is not a URL"},
	} {
		got, err := weborigin.Parse(tc.in)
		if got != tc.want || errText(err) != tc.err {
			t.Errorf("Parse(%q): got %q, %q; want %q, %q", tc.in, got, errText(err), tc.want, tc.err)
		}
		// A serialisation parses as itself: the origin rule compares an
		// Origin header equal to the site's without parsing it.
		if again, err := weborigin.Parse(got); err == nil && again != got {
			t.Errorf("Parse(%q) = %q, and Parse of that = %q", tc.in, got, again)
		}
	}
}

// TestOf: the origin of a URL leaves out userinfo, path, query and
// fragment, and serialises the rest as [weborigin.Parse] does.
func TestOf(t *testing.T) {
	for _, tc := range []struct{ in, want, err string }{
		{in: "HTTPS://Shop.Example:443/checkout?step=2#pay", want: "https://shop.example"},
		{in: "https://u:p@shop.example:0443/", want: "https://shop.example"},
		{in: "http://[::1]:8080/x", want: "http://[::1]:8080"},
		{in: "ftp://shop.example/file", err: "its scheme is ftp; an origin's is http or https"},
		{in: "/checkout", err: "it has no scheme; an origin's is http or https"},
	} {
		got, err := weborigin.Of(tc.in)
		if got != tc.want || errText(err) != tc.err {
			t.Errorf("Of(%q): got %q, %q; want %q, %q", tc.in, got, errText(err), tc.want, tc.err)
		}
	}
}

func errText(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}
