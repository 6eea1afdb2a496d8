package crawl

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"io"
	"net"
	"net/url"
	"strings"
	"syscall"
)

// An UnreachableError is a request that got no answer from the site: its
// message is one sentence that says what could not be reached, why, and
// what to try, each once: "could not reach http://127.0.0.1:9/ (connection
// refused: nothing listens at 127.0.0.1:9); is the site running, at that
// address?". Err is what [net/http.Client.Do] returned.
type UnreachableError struct {
	URL string
	Err error
}

func (e *UnreachableError) Error() string {
	why, try := cause(e.URL, e.Err)
	return fmt.Sprintf("could not reach %s (%s); %s", e.URL, why, try)
}

func (e *UnreachableError) Unwrap() error { return e.Err }

// cause says why err (from Do) left rawURL unanswered, and what to try.
func cause(rawURL string, err error) (why, try string) {
	host := rawURL
	if u, perr := url.Parse(rawURL); perr == nil && u.Host != "" {
		host = u.Host
	}
	var dns *net.DNSError
	var cert *tls.CertificateVerificationError
	var authority x509.UnknownAuthorityError
	var hostname x509.HostnameError
	var record tls.RecordHeaderError
	var ne net.Error
	switch {
	case errors.Is(err, context.Canceled):
		return "interrupted", "run it again"
	case errors.Is(err, syscall.ECONNREFUSED):
		return "connection refused: nothing listens at " + host, "is the site running, at that address?"
	case errors.As(err, &dns) && dns.IsNotFound:
		return "no such host: " + dns.Name, "is the host name spelled right?"
	case errors.As(err, &dns):
		return "the host name could not be looked up: " + dns.Err, "is the network up?"
	case errors.As(err, &cert), errors.As(err, &authority), errors.As(err, &hostname):
		return "its TLS certificate is not trusted: " + innermost(err), "is the URL's host the certificate's?"
	case errors.As(err, &record), strings.Contains(err.Error(), "server gave HTTP response to HTTPS client"):
		return "it does not speak https", "try the URL with http://"
	case errors.Is(err, context.DeadlineExceeded), errors.As(err, &ne) && ne.Timeout():
		return "no answer in time", "is the site up, and reachable from here?"
	case errors.Is(err, syscall.ECONNRESET), errors.Is(err, io.EOF), errors.Is(err, io.ErrUnexpectedEOF):
		return "the connection closed before an answer", "is it an http server, and is http:// or https:// the right one?"
	}
	return innermost(err), "is the site up, at that address?"
}

// innermost is the message of the error at the end of err's chain, which
// says the cause without the URL and the operation around it.
func innermost(err error) string {
	for {
		next := errors.Unwrap(err)
		if next == nil {
			return err.Error()
		}
		err = next
	}
}
