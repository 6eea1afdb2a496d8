package affordances

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"testing"
)

// TestValidIdempotencyKey: 1 to 255 visible ASCII characters.
func TestValidIdempotencyKey(t *testing.T) {
	for _, tc := range []struct {
		key  string
		want bool
	}{
		{"a", true},
		{"0b9f6c3e-5a3b-4c1e-9d1f-2f8e0a7b6c5d", true},
		{"!~", true},
		{fmt.Sprintf("%0255d", 0), true},
		{"", false},
		{fmt.Sprintf("%0256d", 0), false},
		{"a b", false},
		{"a\tb", false},
		{"a\x00", false},
		{"\x7f", false},
		{"ключ", false},
	} {
		if got := validIdempotencyKey(tc.key); got != tc.want {
			t.Errorf("validIdempotencyKey(%q): got %v, want %v", tc.key, got, tc.want)
		}
	}
}

// TestIdempotencyScope: the scope of a kept answer names its caller,
// quoted, and its page, as stores already hold it: a change would lose
// every kept answer of a running site at its upgrade.
func TestIdempotencyScope(t *testing.T) {
	r := httptest.NewRequest(http.MethodPost, "/cart?x=1", nil)
	r.RemoteAddr = "192.0.2.7:4711"
	for _, tc := range []struct {
		p    Principal
		want string
	}{
		{Principal{ID: "alice"}, `p:"alice" /cart`},
		{Principal{ID: `a "b" c`}, `p:"a \"b\" c" /cart`},
		{Principal{}, `a:"192.0.2.7" /cart`},
	} {
		if got := idempotencyScope(r, tc.p); got != tc.want {
			t.Errorf("%+v: got %s, want %s", tc.p, got, tc.want)
		}
	}
}
