package redisstore_test

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/affordances/affordances-go/affordancestest"
	"github.com/affordances/affordances-go/internal/servicetest"
	"github.com/affordances/affordances-go/redisstore"
	"github.com/affordances/affordances-go/store"
)

func TestOAuthStoreContract(t *testing.T) {
	r := servicetest.StartRedis(t)
	n := 0
	affordancestest.TestOAuthStore(t, func(t *testing.T) store.OAuth {
		n++
		return redisstore.NewOAuth(client(t, r), &redisstore.Options{Prefix: "t" + string(rune('a'+n)) + ":"})
	})
}

// TestOAuthAcrossInstances: a code made on one instance is used once, on
// any; what one spends of a grant the other cannot; a grant revoked on one
// takes its tokens away from all.
func TestOAuthAcrossInstances(t *testing.T) {
	r := servicetest.StartRedis(t)
	ctx := context.Background()
	var s [3]store.OAuth
	for i := range s {
		s[i] = redisstore.NewOAuth(client(t, r), nil)
	}
	g := &store.OAuthGrant{ID: "g1", Subject: "alice", Client: "c1", Trust: []string{"read"}, Currency: "USD", Ceiling: 50, Created: time.Now()}
	if err := s[0].CreateGrant(ctx, g); err != nil {
		t.Fatal(err)
	}
	code := &store.OAuthToken{Kind: store.OAuthCode, Signature: "s1", Grant: "g1", Active: true, Expires: time.Now().Add(time.Minute)}
	if err := s[0].CreateToken(ctx, code); err != nil {
		t.Fatal(err)
	}
	if err := s[1].Deactivate(ctx, store.OAuthCode, "s1"); err != nil {
		t.Fatalf("Deactivate on the second instance: %v", err)
	}
	if err := s[2].Deactivate(ctx, store.OAuthCode, "s1"); !errors.Is(err, store.ErrInactive) {
		t.Errorf("Deactivate again on the third: got %v, want ErrInactive", err)
	}
	if err := s[1].Spend(ctx, "g1", "USD", 40); err != nil {
		t.Fatal(err)
	}
	if err := s[2].Spend(ctx, "g1", "USD", 20); !errors.Is(err, store.ErrOverCeiling) {
		t.Errorf("Spend on the third over what the second spent: got %v, want ErrOverCeiling", err)
	}
	if err := s[1].RevokeGrant(ctx, "g1"); err != nil {
		t.Fatal(err)
	}
	if got, err := s[0].Token(ctx, store.OAuthCode, "s1"); err != nil || got != nil {
		t.Errorf("Token on the first after the second revoked its grant: got %+v, %v; want nil", got, err)
	}
	if got, err := s[2].Grants(ctx, "alice"); err != nil || len(got) != 0 {
		t.Errorf("Grants on the third after the second revoked: got %v, %v; want none", got, err)
	}
}

// TestOAuthLeavesNoKeys: a revoked grant leaves no key behind, and the set
// of a grant's tokens drops those expired, so neither grows without end.
func TestOAuthLeavesNoKeys(t *testing.T) {
	r := servicetest.StartRedis(t)
	ctx := context.Background()
	rdb := client(t, r)
	s := redisstore.NewOAuth(rdb, &redisstore.Options{Prefix: "keys:"})
	if err := s.CreateGrant(ctx, &store.OAuthGrant{ID: "g1", Subject: "alice", Client: "c1", Created: time.Now()}); err != nil {
		t.Fatal(err)
	}
	for i := range 50 {
		tok := &store.OAuthToken{Kind: store.OAuthAccess, Signature: fmt.Sprint("short", i), Grant: "g1", Active: true, Expires: time.Now().Add(20 * time.Millisecond)}
		if err := s.CreateToken(ctx, tok); err != nil {
			t.Fatal(err)
		}
	}
	time.Sleep(50 * time.Millisecond)
	for _, kind := range []store.OAuthKind{store.OAuthAccess, store.OAuthRefresh} {
		tok := &store.OAuthToken{Kind: kind, Signature: "long", Grant: "g1", Active: true, Expires: time.Now().Add(time.Hour)}
		if err := s.CreateToken(ctx, tok); err != nil {
			t.Fatal(err)
		}
	}
	sets, err := rdb.Keys(ctx, "keys:oauth:grant-tokens:*").Result()
	if err != nil || len(sets) != 1 {
		t.Fatalf("the grant's token sets: got %q, %v; want one", sets, err)
	}
	if n, err := rdb.ZCard(ctx, sets[0]).Result(); err != nil || n != 2 {
		t.Errorf("the grant's tokens after 50 expired: got %d, %v; want the 2 live ones", n, err)
	}
	if err := s.RevokeGrant(ctx, "g1"); err != nil {
		t.Fatal(err)
	}
	if keys, err := rdb.Keys(ctx, "keys:*").Result(); err != nil || len(keys) != 0 {
		t.Errorf("keys after RevokeGrant: got %q, %v; want none", keys, err)
	}
}
