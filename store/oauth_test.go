package store_test

import (
	"testing"

	"github.com/affordances/affordances-go/affordancestest"
	"github.com/affordances/affordances-go/store"
)

// The in-memory OAuth store keeps the contract the shared ones are held to.
func TestMemoryOAuth(t *testing.T) {
	affordancestest.TestOAuthStore(t, func(*testing.T) store.OAuth { return store.NewMemoryOAuth(nil) })
}
