package oauth

import (
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"testing"
)

// TestMessages: every message the pages write (a T in a template, a
// phrase in the code) is in the French catalogue, and the catalogue holds
// nothing else.
func TestMessages(t *testing.T) {
	files, _ := filepath.Glob("*.go")
	keys := regexp.MustCompile(`(?:\$\.T |\.said\.T |page\.T\(|phrase\()("(?:[^"\\]|\\.)*")`)
	used := map[string]bool{}
	for _, f := range files {
		if filepath.Ext(f) != ".go" || f == "messages.go" || len(f) > 8 && f[len(f)-8:] == "_test.go" {
			continue
		}
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range keys.FindAllSubmatch(b, -1) {
			k, err := strconv.Unquote(string(m[1]))
			if err != nil {
				t.Fatalf("%s: %s: %v", f, m[1], err)
			}
			used[k] = true
			if _, ok := french[k]; !ok {
				t.Errorf("French lacks %q (%s)", k, f)
			}
		}
	}
	if len(used) < 20 {
		t.Errorf("found %d messages, want the pages' 30 and more: the test reads nothing", len(used))
	}
	for k := range french {
		if !used[k] {
			t.Errorf("French has %q, which no page says", k)
		}
	}
	for _, k := range []string{"Allow", "Connected assistants", "registered here", "Spend your money, up to the amount you set here"} {
		if !used[k] {
			t.Errorf("%q was not found among the messages: the test misreads the code", k)
		}
	}
}
