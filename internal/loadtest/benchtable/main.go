// Command benchtable copies the output of go test -bench from its standard
// input to its standard output and then prints, for every benchmark that
// reports x-static (package loadtest), its ratios to the static baseline,
// their median over the runs (-count), its budget (budget-x), and when it
// reports one, the ratio of the application's own code alone (app-x), the
// most any library could reach on that site. Then, for the benchmarks
// that compare the subject with other implementations of its site
// (loadtest.Against: x-<name>, in a sub-benchmark <name> of the row's),
// one table of their medians beside the static baseline's, app-x and the
// share of app-x the subject reaches, a column for each implementation;
// a cell below its budget (budget-x-<name>, budget-app) says so, "<" and
// the budget, and a last line counts the budgets met:
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
	budgets      map[[2]string]float64 // budget-x-<impl>
}

func (o *others) add(name, impl string, ratio float64) {
	if o.ratios == nil {
		o.ratios, o.budgets = map[[2]string][]float64{}, map[[2]string]float64{}
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
	appShare  float64   // budget-app; 0: none
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
				row := strings.TrimSuffix(name, "/"+impl)
				o.add(row, impl, v)
				if b, ok := metrics["budget-x-"+impl]; ok {
					o.budgets[[2]string{row, impl}] = b
				}
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
		r.budget, r.appShare = metrics["budget-x"], metrics["budget-app"]
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
// a row for each benchmark, beside its ratio to the static baseline,
// app-x and their quotient (the share of app-x reached) when a row of rows
// has its name (in any package); each cell below its budget is marked,
// and the last line counts the budgets met.
func printOthers(out io.Writer, rows []*row, o *others) {
	if len(o.names) == 0 {
		return
	}
	byName := map[string]*row{}
	for _, r := range rows {
		byName[r.name] = r
	}
	met, budgets := 0, 0
	// cell is v to two places, with "<" and the budget when below it.
	cell := func(v, budget float64) string {
		if budget == 0 {
			return fmt.Sprintf("%.2f", v)
		}
		budgets++
		if v >= budget {
			met++
			return fmt.Sprintf("%.2f", v)
		}
		return fmt.Sprintf("%.3f <%.2f", v, budget) // 1.196 is below 1.20
	}
	fmt.Fprintln(out)
	fmt.Fprintln(out, "Ratio to other implementations of the site (x-<name>: their cost per request over the subject's; above 1, the subject is cheaper), medians; \"of app\" is x-static over app-x; \"<\" marks a median below its budget:")
	fmt.Fprintf(out, "  %-28s %7s %9s %12s", "benchmark", "static", "app alone", "of app")
	for _, impl := range o.impls {
		fmt.Fprintf(out, " %12s", impl)
	}
	fmt.Fprintln(out)
	for _, name := range o.names {
		static, alone, share := "", "", ""
		if r := byName[name]; r != nil {
			static = fmt.Sprintf("%.2f", median(r.ratios))
			if len(r.alone) > 0 {
				alone = fmt.Sprintf("%.2f", median(r.alone))
				share = cell(median(r.ratios)/median(r.alone), r.appShare)
			}
		}
		fmt.Fprintf(out, "  %-28s %7s %9s %12s", name, static, alone, share)
		for _, impl := range o.impls {
			c := ""
			if v := o.ratios[[2]string{name, impl}]; len(v) > 0 {
				c = cell(median(v), o.budgets[[2]string{name, impl}])
			}
			fmt.Fprintf(out, " %12s", c)
		}
		fmt.Fprintln(out)
	}
	if budgets > 0 {
		fmt.Fprintf(out, "Budgets of this table met: %d of %d.\n", met, budgets)
	}
}
