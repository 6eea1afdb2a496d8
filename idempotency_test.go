package affordances

import (
	"fmt"
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
