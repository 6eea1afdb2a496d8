package store

import (
	"context"
	"errors"
	"time"
)

// What a site's OAuth authorization server keeps (package oauth,
// docs/protocol.md decision 14): the clients assistants registered, what each
// person granted each assistant, and the tokens issued for a grant, each
// under its signature, never the token itself.

// An OAuthKind is the kind of an [OAuthToken].
type OAuthKind string

// The kinds of [OAuthToken].
const (
	OAuthCode    OAuthKind = "code"    // an authorization code
	OAuthAccess  OAuthKind = "access"  // an access token
	OAuthRefresh OAuthKind = "refresh" // a refresh token
	OAuthPKCE    OAuthKind = "pkce"    // the PKCE challenge of a code
)

// An OAuthToken is what the authorization server keeps of one token it
// issued: its signature (an HMAC of the token, from which the token
// cannot be had), the grant it belongs to, and the request it answered.
type OAuthToken struct {
	Kind      OAuthKind
	Signature string
	// Grant is the id of the [OAuthGrant] the token was issued for: all
	// the tokens of one grant go when it is revoked.
	Grant string
	// Active is false once the token was used where it may be used once
	// (a code exchanged, a refresh token rotated): it is kept, inactive,
	// so that its second use is seen, and the grant revoked.
	Active bool
	// Expires is when the store may forget it. A store keeps it to the
	// millisecond.
	Expires time.Time
	// Request is the authorization request, as the server encodes it.
	Request []byte
}

// An OAuthGrant is what a person granted an assistant on the site's
// consent page: the trust classes it may act in, and what it may spend.
type OAuthGrant struct {
	ID      string
	Subject string // the person's principal ID
	Client  string // the assistant's client_id
	// ClientName is the assistant's name as its metadata gave it.
	ClientName string
	// Trust lists the AAL trust classes granted (the scopes).
	Trust []string
	// Currency and Ceiling are what the person let the assistant spend
	// (ISO 4217, in the currency's major unit); Spent is what it spent of
	// it. Empty Currency: nothing.
	Currency       string
	Ceiling, Spent float64
	Created        time.Time
	// LastUsed is when a token of the grant was last accepted.
	LastUsed time.Time
}

// An OAuthClient is an assistant that registered itself (RFC 7591).
// Assistants that name themselves by a metadata document's URL are not
// kept: their document is their registration.
type OAuthClient struct {
	ID           string
	Name         string
	RedirectURIs []string
	Created      time.Time
}

// An OAuth store keeps the records of a site's OAuth authorization
// server. Implementations must be safe for concurrent use, by several
// instances of a site when they share it. Every record a store returns is
// the caller's own copy; an unknown or expired one is nil, nil.
type OAuth interface {
	// CreateToken keeps t under its kind and signature.
	CreateToken(ctx context.Context, t *OAuthToken) error
	// Token returns the token of kind with signature, active or not.
	Token(ctx context.Context, kind OAuthKind, signature string) (*OAuthToken, error)
	// DeleteToken forgets the token of kind with signature, if any.
	DeleteToken(ctx context.Context, kind OAuthKind, signature string) error
	// Deactivate marks the token of kind with signature inactive. It
	// returns [ErrInactive] when it was inactive already, or unknown: of
	// calls at once on one token, exactly one succeeds.
	Deactivate(ctx context.Context, kind OAuthKind, signature string) error
	// DeactivateGrant marks every token of kind of the grant inactive.
	DeactivateGrant(ctx context.Context, kind OAuthKind, grant string) error
	// DeleteGrantTokens forgets every token of kind of the grant.
	DeleteGrantTokens(ctx context.Context, kind OAuthKind, grant string) error

	// CreateGrant keeps g, and forgets the person's earlier grant to the
	// same client with all its tokens: a client holds one grant of a
	// person at a time.
	CreateGrant(ctx context.Context, g *OAuthGrant) error
	// Grant returns the grant with the id.
	Grant(ctx context.Context, id string) (*OAuthGrant, error)
	// Grants returns the person's grants, the newest first.
	Grants(ctx context.Context, subject string) ([]*OAuthGrant, error)
	// Spend adds amount to what the grant spent, if it stays within its
	// ceiling in currency; else it returns [ErrOverCeiling], as it does for
	// an amount that is not a finite number. A negative amount gives back
	// what a call that did not run had taken.
	Spend(ctx context.Context, id, currency string, amount float64) error
	// Used records that a token of the grant was accepted at t.
	Used(ctx context.Context, id string, t time.Time) error
	// RevokeGrant forgets the grant and every token of it, at once.
	RevokeGrant(ctx context.Context, id string) error

	// CreateClient keeps a registered client.
	CreateClient(ctx context.Context, c *OAuthClient) error
	// Client returns the registered client with the id.
	Client(ctx context.Context, id string) (*OAuthClient, error)
}

// ErrInactive is the error of [OAuth.Deactivate] on a token that was
// inactive already, or unknown.
var ErrInactive = errors.New("store: the token is inactive or unknown")

// ErrOverCeiling is the error of [OAuth.Spend] for an amount the grant may
// not spend: over what is left of its ceiling, or in another currency.
var ErrOverCeiling = errors.New("store: over what the grant may still spend")
