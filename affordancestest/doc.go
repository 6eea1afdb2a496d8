// Package affordancestest checks Affordances documents against the JSON
// Schemas of package schemas, for tests of servers and clients, the way
// net/http/httptest serves tests of HTTP code.
//
// In a test, hand it the body a server wrote:
//
//	func TestProductGraph(t *testing.T) {
//		rec := httptest.NewRecorder()
//		req := httptest.NewRequest("GET", "/products/canvas-tote", nil)
//		req.Header.Set("Accept", affordances.MediaType)
//		site.Handler(app).ServeHTTP(rec, req)
//		affordancestest.CheckGraph(t, rec.Body.Bytes())
//	}
//
// A failure lists every problem as a JSON Pointer into the body and a
// message, followed by an excerpt of the body. [Validate] does the same check
// without a testing.TB and returns a [*ValidationError], for code such as a
// conformance suite.
//
// The schemas accept fields they do not know (docs/protocol.md §27), so a
// check fails only on a missing required field, a wrong type, an unknown
// enumeration value or a broken constraint.
//
// [TestRateLimiter], [TestIdempotencyStore], [TestApprovalStore] and [TestOAuthStore] check
// a store of one's own against the contract of its interface in package
// store, as the stores of packages store, sqlstore and redisstore are
// checked.
package affordancestest
