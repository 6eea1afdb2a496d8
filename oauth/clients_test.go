package oauth

import "testing"

// TestPublicOnly: a client's metadata document is fetched from a public
// address on https's port only: never loopback, private, link-local,
// shared (100.64/10, where cloud metadata services answer), reserved,
// NAT64 or 6to4 ranges, whatever DNS says the name is (the check is the
// dialer's, on the address it dials).
func TestPublicOnly(t *testing.T) {
	for addr, ok := range map[string]bool{
		"93.184.215.14:443":          true,
		"[2606:4700::6810:84e5]:443": true,
		"93.184.215.14:8443":         false,
		"127.0.0.1:443":              false,
		"10.1.2.3:443":               false,
		"172.16.0.1:443":             false,
		"192.168.1.1:443":            false,
		"169.254.169.254:443":        false,
		"100.100.100.200:443":        false,
		"0.1.2.3:443":                false,
		"198.18.0.1:443":             false,
		"240.0.0.1:443":              false,
		"[::1]:443":                  false,
		"[fd00::1]:443":              false,
		"[fe80::1]:443":              false,
		"[::ffff:127.0.0.1]:443":     false,
		"[64:ff9b::a00:1]:443":       false,
		"[2002:a00:1::]:443":         false,
	} {
		if err := publicOnly("tcp", addr, nil); (err == nil) != ok {
			t.Errorf("%s: got %v, want allowed %v", addr, err, ok)
		}
	}
}
