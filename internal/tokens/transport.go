package tokens

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"sync"
	"time"

	"golang.org/x/oauth2"

	"github.com/affordances/affordances-go/internal/weborigin"
)

// An EndedError says a site's sign-in can no longer be refreshed: the
// person signs in again.
type EndedError struct {
	Origin string
	Err    error // why: the token endpoint's refusal, or that the sign-in was removed
}

func (e *EndedError) Error() string {
	return fmt.Sprintf("the sign-in to %s has ended (%v): run affordances login %s again", e.Origin, e.Err, e.Origin)
}

func (e *EndedError) Unwrap() error { return e.Err }

// errRemoved is why a sign-in that logout removed cannot be refreshed.
var errRemoved = errors.New("it is no longer kept: logout removed it")

// A Transport sends requests to one site's origin with the access token
// of its sign-in, and every other request without it, unchanged. It
// refreshes the token when it has expired, or once when the site answers
// 401, keeping the rotated refresh token in the file. A refresh that
// fails leaves the request as the site answered it and is reported by
// [Transport.Ended]. It is safe for concurrent use.
type Transport struct {
	file   *File
	origin string
	base   http.RoundTripper

	mu    sync.Mutex
	cur   SignIn
	ended error
}

// NewTransport returns the transport of origin's sign-in s, kept in f,
// over base (nil: http.DefaultTransport), which also reaches the token
// endpoint.
func NewTransport(f *File, origin string, s *SignIn, base http.RoundTripper) *Transport {
	if base == nil {
		base = http.DefaultTransport
	}
	return &Transport{file: f, origin: origin, base: base, cur: *s}
}

// Ended returns an [*EndedError] once a refresh failed, else nil.
func (t *Transport) Ended() error {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.ended
}

// RoundTrip implements http.RoundTripper.
func (t *Transport) RoundTrip(req *http.Request) (*http.Response, error) {
	if o, err := weborigin.Of(req.URL.String()); err != nil || o != t.origin || req.Header.Get("Authorization") != "" {
		return t.base.RoundTrip(req)
	}
	tok, _ := t.Token(req.Context())
	res, err := t.send(req, tok)
	if err != nil || res.StatusCode != http.StatusUnauthorized || tok == "" || (req.Body != nil && req.GetBody == nil) {
		return res, err
	}
	fresh, ferr := t.refresh(req.Context(), tok)
	if ferr != nil || fresh == tok {
		return res, nil
	}
	if req.GetBody != nil {
		body, err := req.GetBody()
		if err != nil {
			return res, nil
		}
		req = req.Clone(req.Context())
		req.Body = body
	}
	res.Body.Close()
	return t.send(req, fresh)
}

func (t *Transport) send(req *http.Request, tok string) (*http.Response, error) {
	if tok == "" {
		return t.base.RoundTrip(req)
	}
	r := req.Clone(req.Context())
	r.Header.Set("Authorization", "Bearer "+tok)
	return t.base.RoundTrip(r)
}

// expiring is how long before its expiry a token is refreshed, so that
// it does not expire on the way.
const expiring = 30 * time.Second

// Token returns the access token to send, refreshed first when it has
// expired. After a refresh failed it returns the last one and the
// failure.
func (t *Transport) Token(ctx context.Context) (string, error) {
	t.mu.Lock()
	cur, ended := t.cur, t.ended
	t.mu.Unlock()
	if ended != nil || cur.Expiry.IsZero() || time.Until(cur.Expiry) > expiring {
		return cur.AccessToken, ended
	}
	return t.refresh(ctx, cur.AccessToken)
}

// refresh returns an access token other than stale: the one another
// goroutine or process refreshed to meanwhile, or a new one from the
// token endpoint, whose rotated refresh token it keeps in the file.
func (t *Transport) refresh(ctx context.Context, stale string) (string, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.ended != nil {
		return t.cur.AccessToken, t.ended
	}
	if t.cur.AccessToken != stale {
		return t.cur.AccessToken, nil
	}
	err := t.file.update(func(d *document) (bool, error) {
		kept := d.Sites[t.origin]
		if kept == nil {
			return false, &EndedError{Origin: t.origin, Err: errRemoved}
		}
		if kept.AccessToken != stale && (kept.Expiry.IsZero() || time.Until(kept.Expiry) > expiring) {
			t.cur = *kept // another command refreshed it, or the person signed in again
			return false, nil
		}
		cfg := &oauth2.Config{ClientID: kept.ClientID,
			Endpoint: oauth2.Endpoint{TokenURL: kept.TokenEndpoint, AuthStyle: oauth2.AuthStyleInParams}}
		hc := &http.Client{Transport: t.base, Timeout: 30 * time.Second}
		tok, err := cfg.TokenSource(context.WithValue(ctx, oauth2.HTTPClient, hc), &oauth2.Token{RefreshToken: kept.RefreshToken}).Token()
		if err != nil {
			var re *oauth2.RetrieveError
			if errors.As(err, &re) {
				// Say the server's error code, not its body.
				err = fmt.Errorf("the site's token endpoint refused to refresh it: %s", Refusal(re))
			}
			return false, &EndedError{Origin: t.origin, Err: err}
		}
		next := *kept
		Refreshed(&next, tok)
		d.Sites[t.origin] = &next
		t.cur = next
		return true, nil
	})
	if err != nil {
		var ee *EndedError
		if !errors.As(err, &ee) {
			err = &EndedError{Origin: t.origin, Err: err}
		}
		t.ended = err
		return t.cur.AccessToken, err
	}
	return t.cur.AccessToken, nil
}

// Refusal is a token endpoint's refusal as a person may read it: its
// error code, never its body.
func Refusal(re *oauth2.RetrieveError) string {
	if re.ErrorCode != "" {
		return re.ErrorCode
	}
	if re.Response != nil {
		return re.Response.Status
	}
	return "refused"
}

// Refreshed updates s with the tokens tok a token endpoint answered:
// the access token, its expiry and scope, and the refresh token when the
// server rotated it.
func Refreshed(s *SignIn, tok *oauth2.Token) {
	s.AccessToken, s.Expiry = tok.AccessToken, tok.Expiry
	if tok.RefreshToken != "" {
		s.RefreshToken = tok.RefreshToken
	}
	if sc, ok := tok.Extra("scope").(string); ok && sc != "" {
		s.Scope = sc
	}
}
