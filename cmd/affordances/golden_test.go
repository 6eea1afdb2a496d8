package main

import (
	"context"
	"flag"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "rewrite the golden files under testdata/golden")

// goldenToken is alice's bearer token in the golden tests.
const goldenToken = "golden-token"

// TestGolden runs index, inspect and call, human and --json, against a
// fresh demo, one step after another (the calls change the cart the later
// steps show), and compares what each printed and its exit code with
// testdata/golden/<step>.txt. Rewrite the files with
//
//	go test ./cmd/affordances -run Golden -update
//
// and review the diff. What changes from run to run is replaced before
// comparing, as testdata/golden/README.md says: the demo's URL by $DEMO,
// order ids by <order-id>, approval ids by <approval-id> and the time an
// approval expires by <expires>. The demo asks on no approval page of its
// own (--no-approval), so the steps show the prompt, --approve and the
// grants; the steps named call-place-order-verified-* run on a second demo,
// which has the person approve each order on its approval page.
func TestGolden(t *testing.T) {
	demo := startDemo(t, goldenToken, "--no-approval")
	verified := startDemo(t, goldenToken)
	product, checkout := demo+"/products/canvas-tote", demo+"/checkout"
	vcheckout := verified + "/checkout"
	tok := []string{"--token", goldenToken}
	cat := func(parts ...[]string) []string {
		var out []string
		for _, p := range parts {
			out = append(out, p...)
		}
		return out
	}
	allGrants := []string{"--grant", "destructive", "--grant", "financial:50USD", "--grant", "confirm"}
	for _, step := range []struct {
		name string
		args []string
		code int
	}{
		{"index", []string{"index", demo}, exitOK},
		{"index-json", []string{"index", "--json", demo}, exitOK},
		{"inspect-home", []string{"inspect", demo + "/"}, exitOK},
		{"inspect-product-anonymous", []string{"inspect", product}, exitOK},
		{"inspect-product-json", cat([]string{"inspect", product, "--json"}, tok), exitOK},
		{"call-search", []string{"call", demo + "/", "search", `{"q":"tote"}`}, exitOK},
		{"call-search-json", []string{"call", demo + "/", "search", `{"q":"tote"}`, "--json"}, exitOK},
		{"call-add-to-cart", cat([]string{"call"}, tok, []string{product, "addToCart", `{"sku":"TOTE-NAT","quantity":1}`}), exitOK},
		{"call-add-to-cart-json", cat([]string{"call", product, "addToCart", `{"sku":"TOTE-NAT"}`, "--json"}, tok), exitOK},
		{"call-unknown-sku", cat([]string{"call"}, tok, []string{product, "addToCart", `{"sku":"NOPE"}`}), exitFail},
		{"call-unknown-sku-json", cat([]string{"call", "--json"}, tok, []string{product, "addToCart", `{"sku":"NOPE"}`}), exitFail},
		{"inspect-cart", cat([]string{"inspect"}, tok, []string{demo + "/cart"}), exitOK},
		{"inspect-checkout", cat([]string{"inspect"}, tok, []string{checkout}), exitOK},
		{"inspect-checkout-human", cat([]string{"inspect", "--human"}, tok, []string{checkout}), exitOK},
		{"inspect-checkout-json", cat([]string{"inspect", "--json"}, tok, []string{checkout}), exitOK},
		{"inspect-checkout-granted", cat([]string{"inspect"}, tok, allGrants, []string{checkout}), exitOK},
		{"call-place-order-no-terminal", cat([]string{"call"}, tok, []string{checkout, "placeOrder"}), exitNotApproved},
		{"call-place-order-no-terminal-json", cat([]string{"call"}, tok, []string{checkout, "placeOrder", "--json"}), exitNotApproved},
		{"call-place-order-site-message", cat([]string{"call"}, tok, allGrants, []string{checkout, "placeOrder"}), exitNotApproved},
		{"call-place-order-unattended", cat([]string{"call", "--unattended"}, tok, []string{checkout, "placeOrder"}), exitNotApproved},
		{"call-place-order-unattended-json", cat([]string{"call", "--unattended", "--json"}, tok, []string{checkout, "placeOrder"}), exitNotApproved},
		{"call-place-order-approve", cat([]string{"call"}, tok, []string{checkout, "placeOrder", "--approve"}), exitOK},
		{"inspect-checkout-after", cat([]string{"inspect"}, tok, []string{checkout}), exitOK},
		{"call-place-order-verified-add-to-cart", cat([]string{"call"}, tok, []string{verified + "/products/canvas-tote", "addToCart", `{"sku":"TOTE-NAT"}`}), exitOK},
		{"call-place-order-verified-timeout", cat([]string{"call"}, tok, []string{vcheckout, "placeOrder", "--approve", "--approval-timeout", "1s"}), exitNotApproved},
		{"call-place-order-verified-timeout-json", cat([]string{"call", "--json"}, tok, []string{vcheckout, "placeOrder", "--approval-timeout", "1s"}), exitNotApproved},
		{"call-place-order-verified-unattended", cat([]string{"call", "--unattended"}, tok, allGrants, []string{vcheckout, "placeOrder"}), exitPending},
	} {
		t.Run(step.name, func(t *testing.T) {
			e, out, errOut := testEnv(nil)
			code := run(context.Background(), e, step.args)
			if code != step.code {
				t.Errorf("exit code: got %d, want %d\nstdout: %s\nstderr: %s", code, step.code, out, errOut)
			}
			got := normalize(normalize(goldenRecord(step.args, code, out.String(), errOut.String()), demo), verified)
			path := filepath.Join("testdata", "golden", step.name+".txt")
			if *update {
				if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			want, err := os.ReadFile(path)
			if err != nil {
				t.Fatalf("%v (run go test ./cmd/affordances -run Golden -update)", err)
			}
			if got != string(want) {
				t.Errorf("%s differs from the golden file (rerun with -update and review the diff)\n--- got\n%s\n--- want\n%s", path, got, want)
			}
		})
	}
}

// goldenRecord writes one step: the command line, its exit code, and what
// it printed on stdout and stderr.
func goldenRecord(args []string, code int, stdout, stderr string) string {
	quoted := make([]string, len(args))
	for i, a := range args {
		if strings.ContainsAny(a, ` "{}'`) {
			a = "'" + a + "'"
		}
		quoted[i] = a
	}
	var b strings.Builder
	b.WriteString("$ affordances " + strings.Join(quoted, " ") + "\n")
	b.WriteString("-- exit " + string(rune('0'+code)) + " --\n")
	b.WriteString("-- stdout --\n" + stdout)
	b.WriteString("-- stderr --\n" + stderr)
	return b.String()
}

// orderID finds the demo's random order ids: eight characters of base32.
var orderID = regexp.MustCompile(`(?:/orders/|"orderId": ?"|Order )([a-z2-7]{8})\b`)

// approvalID finds approval ids: 26 characters of base32, in the
// approval page's URL.
var approvalID = regexp.MustCompile(`/approvals/[a-z2-7]{26}\b`)

// expiry finds when an approval expires: RFC 3339 in JSON, a time of day
// in UTC in text.
var expiry = regexp.MustCompile(`\b\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ|\b\d\d:\d\d:\d\d UTC\b`)

// normalize replaces what changes from run to run: the demo's URL (its
// port) with $DEMO, each order id with <order-id>, each approval id with
// <approval-id> and each expiry with <expires>.
func normalize(s, demo string) string {
	s = strings.ReplaceAll(s, demo, "$DEMO")
	for _, m := range orderID.FindAllStringSubmatch(s, -1) {
		s = strings.ReplaceAll(s, m[1], "<order-id>")
	}
	s = approvalID.ReplaceAllString(s, "/approvals/<approval-id>")
	return expiry.ReplaceAllString(s, "<expires>")
}
