package store

import "time"

// MemoryOptions configures the in-memory stores: [NewMemoryRateLimiter],
// [NewMemoryIdempotency], [NewMemoryApprovals] and [NewMemoryOAuth]. The zero value of every
// field is a sound default; nil means the zero value. A store copies the
// options, so changing them later has no effect.
type MemoryOptions struct {
	// Max bounds what the store holds: the keys of a rate limiter (0:
	// 100,000), the kept answers of an idempotency store (0: 10,000), the
	// live approvals of an approval store (0: 10,000), the live tokens and
	// the clients of an OAuth store (0: 100,000). Past it, each store
	// forgets or refuses what its constructor says.
	Max int

	// Now is the clock the store reads to count time and expire what it
	// holds. Nil: [time.Now]. A test sets its own to see an hour pass
	// without waiting for it.
	Now func() time.Time
}

// withDefaults returns the options with Now set, and Max set to def when
// it is not positive.
func (o *MemoryOptions) withDefaults(def int) MemoryOptions {
	var d MemoryOptions
	if o != nil {
		d = *o
	}
	if d.Max <= 0 {
		d.Max = def
	}
	if d.Now == nil {
		d.Now = time.Now
	}
	return d
}
