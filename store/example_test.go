package store_test

import (
	"context"
	"fmt"
	"time"

	"github.com/affordances/affordances-go/store"
)

// A limiter of 60 calls a minute with a burst of 2: the third call at once
// is refused, with the wait until one fits.
func ExampleNewMemoryRateLimiter() {
	now := time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)
	l := store.NewMemoryRateLimiter(&store.MemoryOptions{Now: func() time.Time { return now }})
	lim := store.Limit{Calls: 60, Per: time.Minute, Burst: 2}
	for range 3 {
		ok, wait, err := l.Allow(context.Background(), "alice", lim)
		fmt.Println(ok, wait, err)
	}
	// Output:
	// true 0s <nil>
	// true 0s <nil>
	// false 1s <nil>
}
