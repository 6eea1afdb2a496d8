package store

import (
	"context"
	"fmt"
	"testing"
	"time"
)

// TestMemoryApprovalsStaysBounded: a flood of calls never grows the
// store past its size; the approvals dropped for room are those closest
// to expiring, and the last ones stay.
func TestMemoryApprovalsStaysBounded(t *testing.T) {
	now := time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)
	m := newMemoryApprovals(&MemoryOptions{Max: 10, Now: func() time.Time { return now }})
	ctx := context.Background()
	long := &Approval{ID: NewApprovalID(), Call: "long", State: ApprovalPending, Expires: now.Add(time.Hour)}
	if _, err := m.Request(ctx, long); err != nil {
		t.Fatal(err)
	}
	for i := range 1000 {
		a := &Approval{ID: NewApprovalID(), Call: fmt.Sprint("flood", i), State: ApprovalPending, Expires: now.Add(ApprovalTTL + time.Duration(i)*time.Millisecond)}
		if got, err := m.Request(ctx, a); err != nil || got.ID != a.ID {
			t.Fatalf("Request %d: got %+v, %v; want it kept", i, got, err)
		}
		if n := len(m.queue); n > 10 || len(m.byCall) != n || len(m.byID) != n {
			t.Fatalf("after %d calls the store holds %d (by call %d, by id %d), want at most 10", i+1, n, len(m.byCall), len(m.byID))
		}
	}
	if got, _ := m.Get(ctx, long.ID); got == nil {
		t.Error("the approval expiring last: dropped, want kept")
	}
	if got, _ := m.Take(ctx, "flood999"); got == nil {
		t.Error("the last call's approval: dropped, want kept")
	}
	if got, _ := m.Take(ctx, "flood0"); got != nil {
		t.Errorf("the first call's approval: got %+v, want dropped for room", got)
	}
}

// TestMemoryApprovalsDropsExpired: expired approvals are swept as the
// store is used, not only when their own call or id comes back; a
// decision lives ApprovalTTL from the moment it is made.
func TestMemoryApprovalsDropsExpired(t *testing.T) {
	now := time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)
	m := newMemoryApprovals(&MemoryOptions{Max: 100, Now: func() time.Time { return now }})
	ctx := context.Background()
	for i := range 50 {
		m.Request(ctx, &Approval{ID: NewApprovalID(), Call: fmt.Sprint("old", i), State: ApprovalPending, Expires: now.Add(ApprovalTTL)})
	}
	decided := &Approval{ID: NewApprovalID(), Call: "decided", State: ApprovalPending, Expires: now.Add(ApprovalTTL)}
	m.Request(ctx, decided)
	now = now.Add(10 * time.Minute)
	if _, err := m.Decide(ctx, decided.ID, true); err != nil {
		t.Fatal(err)
	}
	now = now.Add(ApprovalTTL - 10*time.Minute) // the others expire now
	if got, _ := m.Get(ctx, "unknown"); got != nil {
		t.Fatalf("Get: got %+v", got)
	}
	if n := len(m.queue); n != 1 || len(m.byCall) != 1 || len(m.byID) != 1 {
		t.Errorf("after expiry the store holds %d (by call %d, by id %d), want 1: the decision", n, len(m.byCall), len(m.byID))
	}
	now = now.Add(10*time.Minute - time.Millisecond)
	if got, _ := m.Take(ctx, "decided"); got == nil || got.State != ApprovalApproved {
		t.Errorf("Take just before the decision expires: got %+v, want approved", got)
	}
}
