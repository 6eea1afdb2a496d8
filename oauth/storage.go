package oauth

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"time"

	"github.com/ory/fosite"

	"github.com/affordances/affordances-go/store"
)

// storage is fosite's storage over a [store.OAuth]: each token under its
// kind and signature (fosite hands it the signature, never the token),
// the grant it belongs to by the authorization request's id, and the
// request itself encoded as a [kept]. Clients come from clients.
type storage struct {
	st      store.OAuth
	clients *clients
}

// kept is what a token's record holds of the authorization request it
// was issued for: enough for fosite to check and extend it without
// fetching the client again.
type kept struct {
	ID                string                     `json:"id"`
	RequestedAt       time.Time                  `json:"requestedAt"`
	Client            *fosite.DefaultClient      `json:"client"`
	RequestedScope    []string                   `json:"scopes"`
	GrantedScope      []string                   `json:"grantedScopes"`
	RequestedAudience []string                   `json:"requestedAudience"`
	GrantedAudience   []string                   `json:"grantedAudience"`
	Form              url.Values                 `json:"form"`
	Subject           string                     `json:"subject"`
	ExpiresAt         map[fosite.TokenType]int64 `json:"expiresAt"` // Unix milliseconds
}

// keep encodes r, and says when a token of kind issued for it expires.
func keep(r fosite.Requester, kind fosite.TokenType) ([]byte, time.Time, error) {
	k := kept{ID: r.GetID(), RequestedAt: r.GetRequestedAt(), RequestedScope: r.GetRequestedScopes(),
		GrantedScope: r.GetGrantedScopes(), RequestedAudience: r.GetRequestedAudience(),
		GrantedAudience: r.GetGrantedAudience(), Form: r.GetRequestForm(), ExpiresAt: map[fosite.TokenType]int64{}}
	c := r.GetClient()
	k.Client = &fosite.DefaultClient{ID: c.GetID(), RedirectURIs: c.GetRedirectURIs(), GrantTypes: c.GetGrantTypes(),
		ResponseTypes: c.GetResponseTypes(), Scopes: c.GetScopes(), Audience: c.GetAudience(), Public: c.IsPublic()}
	var expires time.Time
	if s := r.GetSession(); s != nil {
		k.Subject = s.GetSubject()
		for _, t := range []fosite.TokenType{fosite.AuthorizeCode, fosite.AccessToken, fosite.RefreshToken} {
			if at := s.GetExpiresAt(t); !at.IsZero() {
				k.ExpiresAt[t] = at.UnixMilli()
			}
		}
		expires = s.GetExpiresAt(kind)
	}
	if expires.IsZero() { // a PKCE challenge lives as long as its code
		expires = time.UnixMilli(k.ExpiresAt[fosite.AuthorizeCode])
	}
	b, err := json.Marshal(k)
	return b, expires, err
}

// request decodes what keep encoded, its session into session.
func request(b []byte, session fosite.Session) (*fosite.Request, error) {
	var k kept
	if err := json.Unmarshal(b, &k); err != nil {
		return nil, fmt.Errorf("oauth: a kept request: %w", err)
	}
	if s, ok := session.(*fosite.DefaultSession); ok && s != nil {
		s.Subject = k.Subject
		for t, ms := range k.ExpiresAt {
			s.SetExpiresAt(t, time.UnixMilli(ms))
		}
	}
	return &fosite.Request{ID: k.ID, RequestedAt: k.RequestedAt, Client: k.Client, RequestedScope: k.RequestedScope,
		GrantedScope: k.GrantedScope, Form: k.Form, Session: session, RequestedAudience: k.RequestedAudience,
		GrantedAudience: k.GrantedAudience}, nil
}

func (s *storage) create(ctx context.Context, kind store.OAuthKind, ttype fosite.TokenType, signature string, r fosite.Requester) error {
	b, expires, err := keep(r, ttype)
	if err != nil {
		return err
	}
	return s.st.CreateToken(ctx, &store.OAuthToken{Kind: kind, Signature: signature, Grant: r.GetID(), Active: true, Expires: expires, Request: b})
}

// get returns the request of the token, and whether it is active.
func (s *storage) get(ctx context.Context, kind store.OAuthKind, signature string, session fosite.Session) (fosite.Requester, bool, error) {
	t, err := s.st.Token(ctx, kind, signature)
	if err != nil {
		return nil, false, err
	}
	if t == nil {
		return nil, false, fosite.ErrNotFound
	}
	r, err := request(t.Request, session)
	return r, t.Active, err
}

// The tokens fosite keeps.

func (s *storage) CreateAuthorizeCodeSession(ctx context.Context, code string, r fosite.Requester) error {
	return s.create(ctx, store.OAuthCode, fosite.AuthorizeCode, code, r)
}

func (s *storage) GetAuthorizeCodeSession(ctx context.Context, code string, session fosite.Session) (fosite.Requester, error) {
	r, active, err := s.get(ctx, store.OAuthCode, code, session)
	if err == nil && !active {
		return r, fosite.ErrInvalidatedAuthorizeCode // a code used twice: fosite revokes its grant
	}
	return r, err
}

func (s *storage) InvalidateAuthorizeCodeSession(ctx context.Context, code string) error {
	if err := s.st.Deactivate(ctx, store.OAuthCode, code); errors.Is(err, store.ErrInactive) {
		return fosite.ErrInvalidatedAuthorizeCode
	} else if err != nil {
		return err
	}
	return nil
}

func (s *storage) CreateAccessTokenSession(ctx context.Context, signature string, r fosite.Requester) error {
	return s.create(ctx, store.OAuthAccess, fosite.AccessToken, signature, r)
}

func (s *storage) GetAccessTokenSession(ctx context.Context, signature string, session fosite.Session) (fosite.Requester, error) {
	r, active, err := s.get(ctx, store.OAuthAccess, signature, session)
	if err == nil && !active {
		return r, fosite.ErrInactiveToken
	}
	return r, err
}

func (s *storage) DeleteAccessTokenSession(ctx context.Context, signature string) error {
	return s.st.DeleteToken(ctx, store.OAuthAccess, signature)
}

func (s *storage) CreateRefreshTokenSession(ctx context.Context, signature, _ string, r fosite.Requester) error {
	return s.create(ctx, store.OAuthRefresh, fosite.RefreshToken, signature, r)
}

func (s *storage) GetRefreshTokenSession(ctx context.Context, signature string, session fosite.Session) (fosite.Requester, error) {
	r, active, err := s.get(ctx, store.OAuthRefresh, signature, session)
	if err == nil && !active {
		return r, fosite.ErrInactiveToken // a rotated token used again: fosite revokes its grant
	}
	return r, err
}

func (s *storage) DeleteRefreshTokenSession(ctx context.Context, signature string) error {
	return s.st.DeleteToken(ctx, store.OAuthRefresh, signature)
}

// RotateRefreshToken retires the refresh token being used, and the
// grant's access tokens: of two refreshes at once with one token, one
// wins, and the other is refused as a retry.
func (s *storage) RotateRefreshToken(ctx context.Context, grant, signature string) error {
	if err := s.st.Deactivate(ctx, store.OAuthRefresh, signature); errors.Is(err, store.ErrInactive) {
		return fosite.ErrSerializationFailure
	} else if err != nil {
		return err
	}
	return s.st.DeleteGrantTokens(ctx, store.OAuthAccess, grant)
}

// RevokeRefreshToken and RevokeAccessToken end a grant's tokens (RFC
// 7009, and a reused refresh token or code): the grant itself goes too, so
// that the person's page no longer lists it.
func (s *storage) RevokeRefreshToken(ctx context.Context, grant string) error {
	return s.st.RevokeGrant(ctx, grant)
}

func (s *storage) RevokeAccessToken(ctx context.Context, grant string) error {
	return s.st.RevokeGrant(ctx, grant)
}

func (s *storage) CreatePKCERequestSession(ctx context.Context, signature string, r fosite.Requester) error {
	return s.create(ctx, store.OAuthPKCE, fosite.AuthorizeCode, signature, r)
}

func (s *storage) GetPKCERequestSession(ctx context.Context, signature string, session fosite.Session) (fosite.Requester, error) {
	r, _, err := s.get(ctx, store.OAuthPKCE, signature, session)
	return r, err
}

func (s *storage) DeletePKCERequestSession(ctx context.Context, signature string) error {
	return s.st.DeleteToken(ctx, store.OAuthPKCE, signature)
}

// The clients fosite looks up.

func (s *storage) GetClient(ctx context.Context, id string) (fosite.Client, error) {
	return s.clients.get(ctx, id)
}

// ClientAssertionJWTValid and SetClientAssertionJWT are for clients that
// authenticate with a signed JWT, which this server takes from none.
func (s *storage) ClientAssertionJWTValid(context.Context, string) error { return nil }

func (s *storage) SetClientAssertionJWT(context.Context, string, time.Time) error { return nil }
