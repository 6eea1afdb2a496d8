package affordances_test

import (
	"encoding/json"
	"testing"
)

// TEMPORARY until affordancestest lands (issue 2).
func checkGraph(t testing.TB, b []byte) { t.Helper(); mustValid(t, b) }
func checkDelta(t testing.TB, b []byte) { t.Helper(); mustValid(t, b) }
func checkIndex(t testing.TB, b []byte) { t.Helper(); mustValid(t, b) }
func mustValid(t testing.TB, b []byte) {
	t.Helper()
	if !json.Valid(b) {
		t.Fatalf("not JSON: %s", b)
	}
}

func jsonUnmarshal(b []byte, v any) error { return json.Unmarshal(b, v) }
