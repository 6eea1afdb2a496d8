package affordances

import "testing"

// TestClientNetwork: anonymous callers are counted by IPv4 address or IPv6
// /64, so one host cannot mint fresh quota from its own prefix.
func TestClientNetwork(t *testing.T) {
	for addr, want := range map[string]string{
		"192.0.2.7:5555":             "192.0.2.7",
		"[2001:db8:1:2:3:4:5:6]:443": "2001:db8:1:2::/64",
		"[2001:db8:1:2::9]:80":       "2001:db8:1:2::/64",
		"[::ffff:192.0.2.7]:1":       "192.0.2.7",
		"not-an-address":             "not-an-address",
	} {
		if got := clientNetwork(addr); got != want {
			t.Errorf("clientNetwork(%q): got %q, want %q", addr, got, want)
		}
	}
}
