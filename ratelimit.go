package affordances

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/netip"
	"strconv"
	"time"

	"github.com/affordances/affordances-go/store"
)

// A Limit is a rate limit, [store.Limit]: Calls calls per Per, with bursts of
// up to Burst.
type Limit = store.Limit

// defaultLimit is the limit of a site that sets none: 60 calls a minute,
// burst 20 (docs/protocol.md decision 5).
func defaultLimit() Limit { return Limit{Calls: 60, Per: time.Minute, Burst: 20} }

// validLimit reports whether Calls, Per and Burst are all positive.
func validLimit(l Limit) bool { return l.Calls > 0 && l.Per > 0 && l.Burst > 0 }

func mustValidLimit(l Limit, where string) {
	if !validLimit(l) {
		panic(fmt.Sprintf("affordances: %s: Calls, Per and Burst must all be positive, got %+v", where, l))
	}
}

// Limit counts one call under key ("signIn:"+email) against l, beside the
// site's own limit; over it, it returns a [RateLimited] [*Error] for the
// action to return before doing anything. A Limit not all positive is an error.
func (r *Request) Limit(ctx context.Context, key string, l Limit) error {
	if r.route == nil {
		return errors.New("affordances: Request.Limit: a request the site did not make")
	}
	if !validLimit(l) {
		return fmt.Errorf("affordances: Request.Limit: Calls, Per and Burst must all be positive, got %+v", l)
	}
	return r.route.site.allow(ctx, "k:"+key, l)
}

// allow counts one call under key against limit: nil when it fits, the
// rate_limited error when it does not. The site's own keys start "p:" or
// "a:" (the requester), those of [Request.Limit] "k:".
func (s *Site) allow(ctx context.Context, key string, limit Limit) error {
	ok, wait, err := s.limiter.Allow(ctx, key, limit)
	if err != nil {
		return fmt.Errorf("affordances: rate limiter: %w", err)
	}
	if !ok {
		secs := retrySeconds(wait)
		e := libError(RateLimited, phrase("Too many calls. Try again in %d seconds.", secs))
		if secs == 1 {
			e = libError(RateLimited, phrase("Too many calls. Try again in 1 second."))
		}
		e.RetryAfter = time.Duration(secs) * time.Second
		return e
	}
	return nil
}

// appendCaller appends who calls to dst, as the rate limit counts them
// and the Idempotency-Key is scoped to them: the principal's ID, or for an
// anonymous caller its client network ([clientNetwork]), quoted so that
// no ID reads as another caller whatever it holds.
func appendCaller(dst []byte, r *http.Request, p Principal) []byte {
	if p.Anonymous() {
		return strconv.AppendQuote(append(dst, "a:"...), clientNetwork(r.RemoteAddr))
	}
	return strconv.AppendQuote(append(dst, "p:"...), p.ID)
}

// clientNetwork returns who an anonymous caller is for the rate limit: its
// IPv4 address, or the /64 of its IPv6 address (one host's usual share, so
// a host cannot mint fresh quota from its own prefix).
func clientNetwork(remoteAddr string) string {
	host, _, err := net.SplitHostPort(remoteAddr)
	if err != nil {
		host = remoteAddr
	}
	addr, err := netip.ParseAddr(host)
	if err != nil {
		return host
	}
	if addr = addr.Unmap(); addr.Is6() {
		prefix, _ := addr.Prefix(64)
		return prefix.String()
	}
	return addr.String()
}
