package affordancestest_test

import (
	"testing"

	"github.com/affordances/affordances-go"
	"github.com/affordances/affordances-go/affordancestest"
)

// The in-memory stores keep the contracts the shared ones are held to.
func TestMemoryRateLimiter(t *testing.T) {
	affordancestest.TestRateLimiter(t, func(*testing.T) affordances.RateLimiter { return affordances.NewMemoryRateLimiter(0) })
}

func TestMemoryIdempotencyStore(t *testing.T) {
	affordancestest.TestIdempotencyStore(t, func(*testing.T) affordances.IdempotencyStore { return affordances.NewMemoryIdempotencyStore(0) })
}

func TestMemoryApprovalStore(t *testing.T) {
	affordancestest.TestApprovalStore(t, func(*testing.T) affordances.ApprovalStore { return affordances.NewMemoryApprovalStore(0) })
}
