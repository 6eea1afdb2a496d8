package main

import (
	"io"
	"strings"
	"testing"
)

// TestTables: the medians of three runs, each budget's verdict in both
// tables, the share of app-x, and the count of budgets met.
func TestTables(t *testing.T) {
	in := `pkg: example.com/site
BenchmarkHandler/call-1 	 100	 0.20 x-static	 0.35 budget-x	 0.40 app-x	 0.65 budget-app	 5000 cpu-ns/req
BenchmarkHandler/call-1 	 100	 0.30 x-static	 0.35 budget-x	 0.40 app-x	 0.65 budget-app	 5000 cpu-ns/req
BenchmarkHandler/call-1 	 100	 0.22 x-static	 0.35 budget-x	 0.40 app-x	 0.65 budget-app	 5000 cpu-ns/req
pkg: example.com/site/perf
BenchmarkHTTP/call/tuned-1 	 100	 1.05 x-tuned	 1.1 budget-x-tuned
BenchmarkHTTP/call/tuned-1 	 100	 1.20 x-tuned	 1.1 budget-x-tuned
BenchmarkHTTP/call/tuned-1 	 100	 1.00 x-tuned	 1.1 budget-x-tuned
BenchmarkHandler/call/tuned-1 	 100	 1.30 x-tuned	 1 budget-x-tuned
`
	rows, o, failed, err := read(strings.NewReader(in), io.Discard)
	if err != nil || failed || len(rows) != 1 {
		t.Fatalf("got %d rows, failed %v, err %v", len(rows), failed, err)
	}
	var out strings.Builder
	printTable(&out, rows)
	printOthers(&out, rows, o)
	for _, want := range []string{
		"Handler/call                    0.22  0.20 0.30 0.22         >= 0.35 BELOW       0.40  5.0 µs",
		"Handler/call                    0.22      0.40  0.550 <0.65         1.30",
		"HTTP/call                                                    1.050 <1.10",
		"Budgets of this table met: 1 of 3.",
	} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("the tables lack %q:\n%s", want, out.String())
		}
	}
}
