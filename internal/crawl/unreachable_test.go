package crawl

import (
	"context"
	"io"
	"log"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"
)

// TestUnreachable: a request that got no answer reads as one sentence,
// what could not be reached, why and what to try, the URL once, and no
// Go-internal "Get" or "dial tcp" (issue 36).
func TestUnreachable(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	closed := "http://" + l.Addr().String() + "/cart"
	l.Close()
	plain := httptest.NewServer(http.NotFoundHandler())
	defer plain.Close()
	tlsURL := strings.Replace(plain.URL, "http://", "https://", 1) + "/"
	secure := httptest.NewUnstartedServer(http.NotFoundHandler())
	secure.Config.ErrorLog = log.New(io.Discard, "", 0) // the handshake it refuses
	secure.StartTLS()
	defer secure.Close()
	canceled, cancel := context.WithCancel(context.Background())
	cancel()
	mute, err := net.Listen("tcp", "127.0.0.1:0") // it never answers
	if err != nil {
		t.Fatal(err)
	}
	defer mute.Close()
	muteURL := "http://" + mute.Addr().String() + "/"

	for _, tc := range []struct {
		name string
		url  string
		ctx  context.Context
		hc   *http.Client
		want string
	}{
		{"nothing listens", closed, t.Context(), http.DefaultClient,
			"could not reach " + closed + " (connection refused: nothing listens at " + strings.TrimPrefix(strings.TrimSuffix(closed, "/cart"), "http://") + "); is the site running, at that address?"},
		{"https to an http server", tlsURL, t.Context(), http.DefaultClient,
			"could not reach " + tlsURL + " (it does not speak https); try the URL with http://"},
		{"a certificate not trusted", secure.URL + "/", t.Context(), http.DefaultClient,
			"could not reach " + secure.URL + "/ (its TLS certificate is not trusted: x509: certificate signed by unknown authority); is the URL's host the certificate's?"},
		{"interrupted", plain.URL + "/", canceled, http.DefaultClient,
			"could not reach " + plain.URL + "/ (interrupted); run it again"},
		{"no answer in time", muteURL, t.Context(), &http.Client{Timeout: 50 * time.Millisecond},
			"could not reach " + muteURL + " (no answer in time); is the site up, and reachable from here?"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			req, _ := http.NewRequestWithContext(tc.ctx, http.MethodGet, tc.url, nil)
			res, err := tc.hc.Do(req)
			if err == nil {
				res.Body.Close()
				t.Fatalf("GET %s answered %s", tc.url, res.Status)
			}
			if got := (&UnreachableError{URL: tc.url, Err: err}).Error(); got != tc.want {
				t.Errorf("got  %q\nwant %q", got, tc.want)
			}
		})
	}

	dns := &net.DNSError{Err: "no such host", Name: "shop.invalid", IsNotFound: true}
	if got, want := (&UnreachableError{URL: "http://shop.invalid/", Err: dns}).Error(),
		"could not reach http://shop.invalid/ (no such host: shop.invalid); is the host name spelled right?"; got != want {
		t.Errorf("got  %q\nwant %q", got, want)
	}
}
