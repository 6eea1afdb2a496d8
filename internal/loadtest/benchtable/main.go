// Command benchtable copies the output of go test -bench from its standard
// input to its standard output and then prints, for every benchmark that
// reports x-static (package loadtest), its ratios to the static baseline,
// their median over the runs (-count), its budget (budget-x), and when it
// reports one, the ratio of the application's own code alone (app-x), the
// most any library could reach on that site. Then, for the benchmarks
// that compare the subject with other implementations of its site
// (loadtest.Against: x-<name>, in a sub-benchmark <name> of the row's),
// one table of their medians beside the static baseline's and app-x, a
// column for each implementation:
//
//	go test -run '^$' -bench . -count 3 ./... | go run ./internal/loadtest/benchtable
//
// It exits with status 1 when a test or benchmark failed or none ran;
// never because a ratio is below its budget (a timing is not a test).
package main

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"regexp"
	"slices"
	"strconv"
	"strings"
)

func main() {
	rows, compared, failed, err := read(os.Stdin, os.Stdout)
	if err != nil {
		fmt.Fprintln(os.Stderr, "benchtable:", err)
		os.Exit(1)
	}
	if len(rows) == 0 && len(compared.names) == 0 {
		fmt.Fprintln(os.Stderr, "benchtable: no benchmark reported x-static or x-<name>")
		os.Exit(1)
	}
	if len(rows) > 0 {
		printTable(os.Stdout, rows)
	}
	printOthers(os.Stdout, rows, compared)
	if failed {
		fmt.Fprintln(os.Stderr, "benchtable: a test or benchmark failed (above)")
		os.Exit(1)
	}
}

// others are the ratios of a subject to other implementations of its
// site: by benchmark name (as a row's, the implementation's sub-benchmark
// removed), then implementation, in the order they first appear.
type others struct {
	names, impls []string
	ratios       map[[2]string][]float64
}

func (o *others) add(name, impl string, ratio float64) {
	if o.ratios == nil {
		o.ratios = map[[2]string][]float64{}
	}
	if !slices.Contains(o.names, name) {
		o.names = append(o.names, name)
	}
	if !slices.Contains(o.impls, impl) {
		o.impls = append(o.impls, impl)
	}
	k := [2]string{name, impl}
	o.ratios[k] = append(o.ratios[k], ratio)
}

// A row is one benchmark's ratios over the runs.
type row struct {
	pkg, name string
	ratios    []float64
	cost      []float64 // the subject's cpu-ns/req
	alone     []float64 // app-x
	budget    float64   // 0: none
}

var cpuSuffix = regexp.MustCompile(`-\d+$`)

// read copies in to out and collects the rows, in the order they first
// appear, the ratios to other implementations, and whether a failure was
// reported.
func read(in io.Reader, out io.Writer) ([]*row, *others, bool, error) {
	var rows []*row
	o := &others{}
	byName := map[string]*row{}
	pkg, pending, failed := "", "", false
	sc := bufio.NewScanner(in)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		line := sc.Text()
		fmt.Fprintln(out, line)
		if strings.HasPrefix(line, "pkg: ") {
			pkg = strings.TrimPrefix(line, "pkg: ")
			continue
		}
		if strings.HasPrefix(line, "FAIL") || strings.HasPrefix(line, "--- FAIL") || strings.HasPrefix(line, "panic: ") {
			failed = true
			continue
		}
		f := strings.Fields(line)
		if len(f) == 0 {
			continue
		}
		if strings.HasPrefix(f[0], "Benchmark") {
			// The name comes first; its results follow on the same line,
			// or on a later one when something printed in between.
			pending, f = f[0], f[1:]
		}
		if pending == "" {
			continue
		}
		metrics, ok := parse(f)
		if !ok {
			continue
		}
		name := cpuSuffix.ReplaceAllString(strings.TrimPrefix(pending, "Benchmark"), "")
		pending = ""
		for unit, v := range metrics {
			if impl, ok := strings.CutPrefix(unit, "x-"); ok && impl != "static" {
				o.add(strings.TrimSuffix(name, "/"+impl), impl, v)
			}
		}
		ratio, ok := metrics["x-static"]
		if !ok {
			continue
		}
		key := pkg + " " + name
		r := byName[key]
		if r == nil {
			r = &row{pkg: pkg, name: name}
			byName[key] = r
			rows = append(rows, r)
		}
		r.ratios = append(r.ratios, ratio)
		r.budget = metrics["budget-x"]
		if v, ok := metrics["cpu-ns/req"]; ok {
			r.cost = append(r.cost, v)
		}
		if v, ok := metrics["app-x"]; ok {
			r.alone = append(r.alone, v)
		}
	}
	return rows, o, failed, sc.Err()
}

// parse reads the results of a benchmark: the iterations, then values and
// their units.
func parse(f []string) (map[string]float64, bool) {
	if len(f) < 3 || len(f)%2 != 1 {
		return nil, false
	}
	if _, err := strconv.Atoi(f[0]); err != nil {
		return nil, false
	}
	metrics := map[string]float64{}
	for i := 1; i+1 < len(f); i += 2 {
		v, err := strconv.ParseFloat(f[i], 64)
		if err != nil {
			return nil, false
		}
		metrics[f[i+1]] = v
	}
	return metrics, true
}

func median(v []float64) float64 {
	s := slices.Sorted(slices.Values(v))
	n := len(s)
	if n%2 == 1 {
		return s[n/2]
	}
	return (s[n/2-1] + s[n/2]) / 2
}

func printTable(out io.Writer, rows []*row) {
	fmt.Fprintln(out)
	fmt.Fprintln(out, "Ratio to the static baseline (x-static: its cost per request over the subject's), same run:")
	fmt.Fprintf(out, "%-30s %7s  %-22s %7s  %-7s %9s  %s\n", "benchmark", "median", "runs", "budget", "", "app alone", "subject's CPU per request (median)")
	pkg := ""
	for _, r := range rows {
		if r.pkg != pkg {
			pkg = r.pkg
			fmt.Fprintf(out, "%s\n", pkg)
		}
		runs := make([]string, len(r.ratios))
		for i, x := range r.ratios {
			runs[i] = fmt.Sprintf("%.2f", x)
		}
		m := median(r.ratios)
		budget, verdict := "", ""
		if r.budget > 0 {
			budget = fmt.Sprintf(">= %.2f", r.budget)
			verdict = "ok"
			if m < r.budget {
				verdict = "BELOW"
			}
		}
		cost := ""
		if len(r.cost) > 0 {
			cost = fmt.Sprintf("%.1f µs", median(r.cost)/1000)
		}
		alone := ""
		if len(r.alone) > 0 {
			alone = fmt.Sprintf("%.2f", median(r.alone))
		}
		fmt.Fprintf(out, "  %-28s %7.2f  %-22s %7s %-5s  %9s  %s\n", r.name, m, strings.Join(runs, " "), budget, verdict, alone, cost)
	}
}

// printOthers prints the medians of the ratios to other implementations,
// a row for each benchmark, beside its ratio to the static baseline and
// app-x when a row of rows has its name (in any package).
func printOthers(out io.Writer, rows []*row, o *others) {
	if len(o.names) == 0 {
		return
	}
	byName := map[string]*row{}
	for _, r := range rows {
		byName[r.name] = r
	}
	fmt.Fprintln(out)
	fmt.Fprintln(out, "Ratio to other implementations of the site (x-<name>: their cost per request over the subject's; above 1, the subject is cheaper), medians:")
	fmt.Fprintf(out, "  %-28s %7s %9s", "benchmark", "static", "app alone")
	for _, impl := range o.impls {
		fmt.Fprintf(out, " %10s", impl)
	}
	fmt.Fprintln(out)
	for _, name := range o.names {
		static, alone := "", ""
		if r := byName[name]; r != nil {
			static = fmt.Sprintf("%.2f", median(r.ratios))
			if len(r.alone) > 0 {
				alone = fmt.Sprintf("%.2f", median(r.alone))
			}
		}
		fmt.Fprintf(out, "  %-28s %7s %9s", name, static, alone)
		for _, impl := range o.impls {
			cell := ""
			if v := o.ratios[[2]string{name, impl}]; len(v) > 0 {
				cell = fmt.Sprintf("%.2f", median(v))
			}
			fmt.Fprintf(out, " %10s", cell)
		}
		fmt.Fprintln(out)
	}
}
