// Package store defines where an Affordances site keeps what outlives one
// call: rate limits ([RateLimiter]), the answers of calls made with an
// Idempotency-Key ([Idempotency]), the approvals of human-verified calls
// ([Approvals]) and what the site's OAuth authorization server keeps
// ([OAuth]: registered assistants, what a person granted each, and the
// tokens issued for a grant); with the records they keep, and the
// in-memory stores a site uses when it is given none.
//
// Most code should use package affordances; this is for those who write a
// store, as database/sql/driver is for those who write a database driver.
// A site takes its stores in its affordances.SiteOptions (RateLimiter,
// Idempotency, Approvals): from this package, from package sqlstore (the
// application's own SQL database, which a restart does not forget) or from
// package redisstore (Redis, shared by every instance of the site).
//
// # What every store promises
//
// A store is safe for concurrent use, by several instances of a site when
// they share it: each step the interface calls atomic is atomic across all
// of them. When the store fails (its database or its server is down) the
// operation returns the error, and the site fails closed: a call whose
// limit, Idempotency-Key or approval it cannot check gets internal and
// does not run.
//
// What each store promises, in short (its interface says it in full):
//
//   - A [RateLimiter] counts calls per key in a token bucket: a burst of
//     Limit.Burst calls, then one each Limit.Per/Limit.Calls; a refused
//     call is not counted, and of concurrent calls no more fit than the
//     limit lets through.
//   - An [Idempotency] store lets exactly one of any number of concurrent
//     calls with one Idempotency-Key claim it, reports the others as
//     running, and keeps the claimer's answer for [IdempotencyTTL], so that
//     an action runs at most once for its key.
//   - An [Approvals] store keeps one approval per call, lets the person
//     decide it once, and lets the call take the decision once, so that one
//     approval lets one call run, once; a decision lives [ApprovalTTL].
//   - An [OAuth] store keeps each token under its signature, never the
//     token, and lets exactly one of concurrent uses deactivate a token
//     that may be used once; it keeps one grant per person and assistant,
//     lets the assistant spend within the grant's ceiling, under
//     concurrent calls too, and forgets a revoked grant with all its
//     tokens at once.
//
// Package affordancestest checks a store against these contracts
// (TestRateLimiter, TestIdempotencyStore, TestApprovalStore,
// TestOAuthStore); the stores of this package, sqlstore and redisstore
// pass them.
package store
