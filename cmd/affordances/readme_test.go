package main

import (
	"bufio"
	"bytes"
	"errors"
	"os"
	"os/exec"
	"strings"
	"testing"

	"github.com/affordances/affordances-go/internal/demotest"
	"github.com/affordances/affordances-go/internal/pdeathsig"
)

// TestREADMETour runs every command of the README's tour, verbatim but for
// the port (and "go run ./cmd/affordances", built once), against a live demo, and checks that each "#=>" line appears in
// the output of the command above it. The README's promise that the tour
// works is this test.
func TestREADMETour(t *testing.T) {
	if _, err := exec.LookPath("curl"); err != nil {
		if os.Getenv("AFFORDANCES_CHECK") != "" {
			t.Fatal("curl is not installed: make check should have installed it (make deps)")
		}
		t.Skip("curl is not installed; make check installs it")
	}
	readme, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	steps := tourSteps(t, string(readme))
	if len(steps) < 10 {
		t.Fatalf("found %d tour commands in README.md, want at least 10", len(steps))
	}

	// The tour's first block starts the demo; this test starts it itself,
	// the same way, on a free port.
	start := steps[0]
	if !strings.Contains(start.cmd, "AFFORDANCES_DEMO_TOKEN=demo go run ./cmd/affordances demo --data") {
		t.Fatalf("the tour no longer starts with the demo: %q", start.cmd)
	}
	url := startDemo(t, "demo")
	dir := t.TempDir()
	bin := demotest.Command(t)
	shell := ""
	for _, s := range steps[1:] {
		cmd := strings.ReplaceAll(s.cmd, "http://127.0.0.1:8080", url)
		cmd = strings.ReplaceAll(cmd, "go run ./cmd/affordances", bin)
		shell += cmd + "\necho '@@end'\n"
	}
	c := exec.Command("bash", "-c", shell)
	pdeathsig.Set(c)
	c.Dir = dir
	var stderr bytes.Buffer
	c.Stderr = &stderr
	out, err := c.Output()
	if err != nil {
		t.Fatalf("tour: %v\n%s", err, stderr.String())
	}
	outputs := strings.Split(string(out), "@@end\n")
	for i, s := range steps[1:] {
		for _, want := range s.want {
			if !strings.Contains(outputs[i], strings.ReplaceAll(want, "http://127.0.0.1:8080", url)) {
				t.Errorf("README tour: %s\n got: %s\nwant it to contain: %s", s.cmd, outputs[i], want)
			}
		}
	}
}

type tourStep struct {
	cmd  string
	want []string
}

// tourSteps reads the ```sh blocks of the README's tour section.
func tourSteps(t *testing.T, readme string) []tourStep {
	_, tour, ok := strings.Cut(readme, "## A five-minute tour")
	if !ok {
		t.Fatal("README.md has no tour section")
	}
	tour, _, _ = strings.Cut(tour, "\n## ")
	var steps []tourStep
	in := false
	sc := bufio.NewScanner(strings.NewReader(tour))
	for sc.Scan() {
		line := sc.Text()
		switch {
		case line == "```sh":
			in = true
		case line == "```":
			in = false
		case !in || strings.TrimSpace(line) == "":
		case strings.HasPrefix(line, "#=> "):
			if len(steps) == 0 {
				t.Fatal("a #=> line before any command")
			}
			steps[len(steps)-1].want = append(steps[len(steps)-1].want, strings.TrimPrefix(line, "#=> "))
		case strings.HasPrefix(line, "#"):
		default:
			steps = append(steps, tourStep{cmd: line})
		}
	}
	return steps
}

// startDemo runs `affordances demo` on a free port with a fresh data
// directory (a copy of the database seeded once per test binary,
// demotest.ShopData), alice's token fixed and the demo's flags, until the
// test ends, and returns its URL.
func startDemo(t *testing.T, token string, flags ...string) string {
	t.Helper()
	url, _, stop := launch(t, token, append([]string{"demo", "--data", demotest.ShopData(t)}, flags...)...)
	t.Cleanup(stop)
	return url
}

// TestREADMEAgents runs the commands of the README's "For agents" section
// with the built binary against a live demo (alice's token is "demo", as
// there). Each exits 0. placeOrder waits for alice on the shop's approval
// page, as the README says: the test plays alice, who approves in her
// browser once the command shows the page and waits; the order is then
// placed, once.
func TestREADMEAgents(t *testing.T) {
	readme, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	_, section, ok := strings.Cut(string(readme), "## For agents: inspect, call, index")
	if !ok {
		t.Fatal(`README.md has no "For agents" section`)
	}
	section, _, _ = strings.Cut(section, "\n## ")
	var cmds []string
	in := false
	for line := range strings.Lines(section) {
		line = strings.TrimRight(line, "\n")
		switch {
		case line == "```sh":
			in = true
		case line == "```":
			in = false
		case in && strings.TrimSpace(line) != "":
			cmds = append(cmds, line)
		}
	}
	if len(cmds) < 4 {
		t.Fatalf("found %d commands in the README's For agents section, want at least 4", len(cmds))
	}
	url := startDemo(t, "demo")
	alice := signInLater(url) // her browser, signed in while the binary builds
	bin := demotest.Command(t)
	ordered := 0
	for _, cmd := range cmds {
		line := strings.ReplaceAll(cmd, "http://127.0.0.1:8080", url)
		line = strings.Replace(line, "affordances ", bin+" ", 1)
		c := exec.Command("bash", "-c", line) // stdin: the null device
		pdeathsig.Set(c)
		c.Env = append(os.Environ(), "AFFORDANCES_TOKEN=")
		var out syncBuffer
		c.Stdout, c.Stderr = &out, &out
		if err := c.Start(); err != nil {
			t.Fatal(err)
		}
		if strings.Contains(cmd, "placeOrder") {
			ordered++
			if err := <-personDecides(alice, "demo", &out, 2, "approve"); err != nil {
				c.Process.Kill() // not left waiting for the page to expire
				t.Errorf("README: %s\nalice could not approve on the page: %v", cmd, err)
			}
		}
		err := c.Wait()
		code := 0
		var ee *exec.ExitError
		if errors.As(err, &ee) {
			code = ee.ExitCode()
		} else if err != nil {
			t.Fatal(err)
		}
		if code != exitOK {
			t.Errorf("README: %s\nexit %d, want 0:\n%s", cmd, code, out.String())
		}
	}
	if ordered != 1 {
		t.Errorf("the README's For agents section places %d orders, want 1", ordered)
	}
	if n, o, err := shopCounts(url, "demo"); err != nil || n != 0 || o != 1 {
		t.Errorf("after the README's commands: cart count %d, %d orders, %v, want the 2 totes ordered once: 0 and 1", n, o, err)
	}
}
