package store

import (
	"cmp"
	"context"
	"errors"
	"math"
	"slices"
	"sync"
	"time"
)

// NewMemoryOAuth returns an [OAuth] store held in memory, for a single
// instance whose grants may die with it (a restart signs every assistant
// out). It keeps at most opts.Max live tokens, and as many registered
// clients (0: 100,000); past that, CreateToken and CreateClient fail, so
// memory stays bounded under a flood of sign-ins or registrations.
// Expired tokens are swept as tokens are made.
func NewMemoryOAuth(opts *MemoryOptions) OAuth {
	o := opts.withDefaults(100_000)
	return &memoryOAuth{max: o.Max, now: o.Now, tokens: map[tokenKey]*OAuthToken{},
		grants: map[string]*OAuthGrant{}, clients: map[string]*OAuthClient{}}
}

type tokenKey struct {
	kind      OAuthKind
	signature string
}

type memoryOAuth struct {
	mu      sync.Mutex
	max     int
	now     func() time.Time
	tokens  map[tokenKey]*OAuthToken
	grants  map[string]*OAuthGrant
	clients map[string]*OAuthClient
}

// errFull is what CreateToken and CreateClient answer when the store
// holds its Max.
var errFull = errors.New("store: the OAuth store holds as many tokens as it may")

func (m *memoryOAuth) CreateToken(_ context.Context, t *OAuthToken) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	if len(m.tokens) >= m.max {
		now := m.now()
		for k, held := range m.tokens {
			if !held.Expires.After(now) {
				delete(m.tokens, k)
			}
		}
		if len(m.tokens) >= m.max {
			return errFull
		}
	}
	c := *t
	c.Request = slices.Clone(t.Request)
	c.Expires = time.UnixMilli(t.Expires.UnixMilli())
	m.tokens[tokenKey{t.Kind, t.Signature}] = &c
	return nil
}

// live returns the token under k unless it is expired; the caller holds mu.
func (m *memoryOAuth) live(k tokenKey) *OAuthToken {
	t := m.tokens[k]
	if t == nil || !t.Expires.After(m.now()) {
		return nil
	}
	return t
}

func (m *memoryOAuth) Token(_ context.Context, kind OAuthKind, signature string) (*OAuthToken, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	t := m.live(tokenKey{kind, signature})
	if t == nil {
		return nil, nil
	}
	c := *t
	c.Request = slices.Clone(t.Request)
	return &c, nil
}

func (m *memoryOAuth) DeleteToken(_ context.Context, kind OAuthKind, signature string) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	delete(m.tokens, tokenKey{kind, signature})
	return nil
}

func (m *memoryOAuth) Deactivate(_ context.Context, kind OAuthKind, signature string) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	t := m.live(tokenKey{kind, signature})
	if t == nil || !t.Active {
		return ErrInactive
	}
	t.Active = false
	return nil
}

func (m *memoryOAuth) DeactivateGrant(_ context.Context, kind OAuthKind, grant string) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	for k, t := range m.tokens {
		if k.kind == kind && t.Grant == grant {
			t.Active = false
		}
	}
	return nil
}

func (m *memoryOAuth) DeleteGrantTokens(_ context.Context, kind OAuthKind, grant string) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	for k, t := range m.tokens {
		if k.kind == kind && t.Grant == grant {
			delete(m.tokens, k)
		}
	}
	return nil
}

func (m *memoryOAuth) CreateGrant(_ context.Context, g *OAuthGrant) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	for id, held := range m.grants {
		if held.Subject == g.Subject && held.Client == g.Client {
			m.revoke(id)
		}
	}
	m.grants[g.ID] = copyGrant(g)
	return nil
}

// copyGrant returns a copy of g that shares no memory with it.
func copyGrant(g *OAuthGrant) *OAuthGrant {
	c := *g
	c.Trust = slices.Clone(g.Trust)
	return &c
}

func (m *memoryOAuth) Grant(_ context.Context, id string) (*OAuthGrant, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if g := m.grants[id]; g != nil {
		return copyGrant(g), nil
	}
	return nil, nil
}

func (m *memoryOAuth) Grants(_ context.Context, subject string) ([]*OAuthGrant, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	var out []*OAuthGrant
	for _, g := range m.grants {
		if g.Subject == subject {
			out = append(out, copyGrant(g))
		}
	}
	slices.SortFunc(out, func(a, b *OAuthGrant) int { return cmp.Or(b.Created.Compare(a.Created), cmp.Compare(a.ID, b.ID)) })
	return out, nil
}

func (m *memoryOAuth) Spend(_ context.Context, id, currency string, amount float64) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	g := m.grants[id]
	// NaN must not pass: added to Spent it would let every later Spend
	// through, as no comparison with NaN is true.
	if g == nil || g.Currency == "" || currency != g.Currency || math.IsNaN(amount) || math.IsInf(amount, 0) || g.Spent+amount > g.Ceiling {
		return ErrOverCeiling
	}
	g.Spent = max(g.Spent+amount, 0)
	return nil
}

func (m *memoryOAuth) Used(_ context.Context, id string, t time.Time) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	if g := m.grants[id]; g != nil && t.After(g.LastUsed) {
		g.LastUsed = t
	}
	return nil
}

func (m *memoryOAuth) RevokeGrant(_ context.Context, id string) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.revoke(id)
	return nil
}

// revoke forgets the grant id and its tokens; the caller holds mu.
func (m *memoryOAuth) revoke(id string) {
	delete(m.grants, id)
	for k, t := range m.tokens {
		if t.Grant == id {
			delete(m.tokens, k)
		}
	}
}

func (m *memoryOAuth) CreateClient(_ context.Context, c *OAuthClient) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	if len(m.clients) >= m.max {
		return errFull
	}
	held := *c
	held.RedirectURIs = slices.Clone(c.RedirectURIs)
	m.clients[c.ID] = &held
	return nil
}

func (m *memoryOAuth) Client(_ context.Context, id string) (*OAuthClient, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	c := m.clients[id]
	if c == nil {
		return nil, nil
	}
	held := *c
	held.RedirectURIs = slices.Clone(c.RedirectURIs)
	return &held, nil
}
