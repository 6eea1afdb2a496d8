package redisstore_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/affordances/affordances-go/affordancestest"
	"github.com/affordances/affordances-go/internal/servicetest"
	"github.com/affordances/affordances-go/redisstore"
	"github.com/affordances/affordances-go/store"
)

func TestApprovalStoreContract(t *testing.T) {
	r := servicetest.StartRedis(t)
	n := 0
	affordancestest.TestApprovalStore(t, func(t *testing.T) store.Approvals {
		n++
		return redisstore.NewApprovals(client(t, r), &redisstore.Options{Prefix: "t" + string(rune('a'+n)) + ":"})
	})
}

// TestApprovalsAcrossInstances: an approval requested on one instance is
// decided on another and taken, once, on a third.
func TestApprovalsAcrossInstances(t *testing.T) {
	r := servicetest.StartRedis(t)
	ctx := context.Background()
	var s [3]store.Approvals
	for i := range s {
		s[i] = redisstore.NewApprovals(client(t, r), nil)
	}
	a := &store.Approval{ID: store.NewApprovalID(), Call: "c1", Principal: "u1", Page: "/", Action: "pay",
		Input: []byte(`{"amount":5}`), State: store.ApprovalPending, Expires: time.Now().Add(store.ApprovalTTL)}
	if _, err := s[0].Request(ctx, a); err != nil {
		t.Fatal(err)
	}
	if _, err := s[1].Decide(ctx, a.ID, true); err != nil {
		t.Fatal(err)
	}
	if got, err := s[2].Take(ctx, "c1"); err != nil || got == nil || got.State != store.ApprovalApproved {
		t.Fatalf("Take on the third instance: got %+v, %v; want approved", got, err)
	}
	if got, err := s[0].Take(ctx, "c1"); err != nil || got != nil {
		t.Errorf("Take again on the first: got %+v, %v; want nil", got, err)
	}
}

// TestApprovalStoreRedisDown: with Redis gone every operation returns an
// error (fail closed: no approval, no decision), and works again once
// Redis is back.
func TestApprovalStoreRedisDown(t *testing.T) {
	r := servicetest.StartRedis(t)
	s := redisstore.NewApprovals(client(t, r), nil)
	ctx := context.Background()
	a := &store.Approval{ID: store.NewApprovalID(), Call: "c1", State: store.ApprovalPending, Expires: time.Now().Add(time.Minute)}
	if _, err := s.Request(ctx, a); err != nil {
		t.Fatal(err)
	}
	r.Stop()
	if got, err := s.Request(ctx, a); err == nil || got != nil {
		t.Errorf("Request: got %+v, %v; want an error", got, err)
	}
	if got, err := s.Get(ctx, a.ID); err == nil || got != nil {
		t.Errorf("Get: got %+v, %v; want an error", got, err)
	}
	if got, err := s.Decide(ctx, a.ID, true); err == nil || got != nil || errors.Is(err, store.ErrApprovalClosed) {
		t.Errorf("Decide: got %+v, %v; want an error other than ErrApprovalClosed", got, err)
	}
	if got, err := s.Take(ctx, "c1"); err == nil || got != nil {
		t.Errorf("Take: got %+v, %v; want an error", got, err)
	}
	r.Restart()
	deadline := time.Now().Add(5 * time.Second)
	for {
		got, err := s.Request(ctx, a)
		if err == nil && got != nil && got.ID == a.ID {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("Request once Redis is back: got %+v, %v", got, err)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// TestApprovalKeptByAnEarlierVersion: an approval kept before approvals
// held their consent digest and cost (a hash without those fields) reads
// back with both empty, and is decided and taken as before.
func TestApprovalKeptByAnEarlierVersion(t *testing.T) {
	r := servicetest.StartRedis(t)
	ctx := context.Background()
	rdb := client(t, r)
	s := redisstore.NewApprovals(rdb, &redisstore.Options{Prefix: "old:"})
	a := &store.Approval{ID: store.NewApprovalID(), Call: "c1", Principal: "u1", Page: "/", Action: "pay", Input: []byte(`{}`),
		Consent: "d1", Cost: "USD 5.00", State: store.ApprovalPending, Expires: time.Now().Add(store.ApprovalTTL)}
	if _, err := s.Request(ctx, a); err != nil {
		t.Fatal(err)
	}
	keys, err := rdb.Keys(ctx, "old:approval:call:*").Result()
	if err != nil || len(keys) != 1 {
		t.Fatalf("the approval's hash: got %q, %v; want one key", keys, err)
	}
	if err := rdb.HDel(ctx, keys[0], "consent", "cost").Err(); err != nil {
		t.Fatal(err)
	}
	if got, err := s.Get(ctx, a.ID); err != nil || got == nil || got.Consent != "" || got.Cost != "" || got.Summary != a.Summary {
		t.Fatalf("Get of a hash without consent and cost: got %+v, %v; want them empty", got, err)
	}
	if _, err := s.Decide(ctx, a.ID, true); err != nil {
		t.Fatal(err)
	}
	if got, err := s.Take(ctx, "c1"); err != nil || got == nil || got.State != store.ApprovalApproved {
		t.Errorf("Take: got %+v, %v; want it approved", got, err)
	}
}
