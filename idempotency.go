package affordances

// IdempotencyHeader is the request header that makes a call idempotent
// (CLARIFICATIONS 10): the first delta of a call with a given key is kept
// for [store.IdempotencyTTL] (24 hours) and replayed for a retry with the
// same body.
const IdempotencyHeader = "Idempotency-Key"

// maxIdempotencyKey bounds an Idempotency-Key's length, in bytes.
const maxIdempotencyKey = 255

// validIdempotencyKey reports whether k is 1 to 255 visible ASCII
// characters.
func validIdempotencyKey(k string) bool {
	if len(k) == 0 || len(k) > maxIdempotencyKey {
		return false
	}
	for i := 0; i < len(k); i++ {
		if k[i] < 0x21 || k[i] > 0x7e {
			return false
		}
	}
	return true
}
