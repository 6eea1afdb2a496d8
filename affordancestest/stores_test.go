package affordancestest_test

import (
	"testing"

	"github.com/affordances/affordances-go/affordancestest"
	"github.com/affordances/affordances-go/store"
)

// The in-memory stores keep the contracts the shared ones are held to.
func TestMemoryRateLimiter(t *testing.T) {
	affordancestest.TestRateLimiter(t, func(*testing.T) store.RateLimiter { return store.NewMemoryRateLimiter(nil) })
}

func TestMemoryIdempotency(t *testing.T) {
	affordancestest.TestIdempotencyStore(t, func(*testing.T) store.Idempotency { return store.NewMemoryIdempotency(nil) })
}

func TestMemoryApprovals(t *testing.T) {
	affordancestest.TestApprovalStore(t, func(*testing.T) store.Approvals { return store.NewMemoryApprovals(nil) })
}
