package bench_test

import (
	"bytes"
	"context"
	"errors"
	"image/png"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/affordances/affordances-go/bench"
	"github.com/affordances/affordances-go/internal/browser"
)

// task returns the bench's fixture id.
func task(t *testing.T, id string) *bench.Task {
	t.Helper()
	for _, task := range bench.Tasks() {
		if task.ID == id {
			return task
		}
	}
	t.Fatalf("no task %s", id)
	return nil
}

// needs skips the test for want of a tool (err wraps missing), or fails
// it under make check (AFFORDANCES_CHECK), where nothing may skip.
func needs(t *testing.T, err, missing error) {
	t.Helper()
	if errors.Is(err, missing) {
		if os.Getenv("AFFORDANCES_CHECK") != "" {
			t.Fatalf("%v: make check should have installed it (make deps)", err)
		}
		t.Skipf("%v; make check installs it", err)
	}
	if err != nil {
		t.Fatal(err)
	}
}

// runTask runs the fixture id in mode on a fresh demo, checks the site's
// database after it, and returns what the mode observed and where the
// observations are kept.
func runTask(t *testing.T, mode bench.Mode, id string) ([]bench.Observation, string) {
	t.Helper()
	ctx := context.Background()
	tk := task(t, id)
	d, stop, err := bench.StartDemo(ctx, tk.Site, bench.DemoSize, tk.As)
	if err != nil {
		t.Fatal(err)
	}
	defer stop()
	root := t.TempDir()
	rec, err := bench.NewRecorder(root, filepath.Join(id, mode.Name()))
	if err != nil {
		t.Fatal(err)
	}
	if err := mode.Run(ctx, tk, d, rec); err != nil {
		t.Fatalf("%s in the %s mode: %v", id, mode.Name(), err)
	}
	if err := tk.Check(ctx, d); err != nil {
		t.Errorf("%s in the %s mode: the site's data: %v", id, mode.Name(), err)
	}
	return rec.Observations(), root
}

// whats lists what each observation followed.
func whats(obs []bench.Observation) []string {
	var out []string
	for _, o := range obs {
		out = append(out, o.What)
	}
	return out
}

// uiTasks are the tasks both browser modes run in their tests, and what
// their agent does: one observation after each.
var uiTasks = []struct {
	id    string
	whats []string
}{
	// Two pages: a click, a navigation, a field filled in, a click.
	{"shop-cart-quantity", []string{"start /products/stoneware-mug", "click add-to-cart", "go to /cart", "fill quantity", "click update-quantity"}},
	// A delete the agent's gate asks about and the person declines:
	// nothing to fill in, nothing clicked.
	{"board-delete-task-declined", []string{"start /boards/team-offsite"}},
}

// TestScreenshotMode: the screenshot mode performs a task through UI
// interactions in Chromium and sees a 1280×800 screenshot after each,
// counted by both image formulas.
func TestScreenshotMode(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: no browser (make check runs the mode)")
	}
	m := bench.NewScreenshotMode(nil)
	t.Cleanup(func() { m.Close() })
	needs(t, m.Start(context.Background()), browser.ErrNoChromium)
	for _, tc := range uiTasks {
		obs, root := runTask(t, m, tc.id)
		if got := whats(obs); !slices.Equal(got, tc.whats) {
			t.Errorf("%s: the agent observed after %q, want %q", tc.id, got, tc.whats)
		}
		for i, o := range obs {
			if o.Step != i || o.Kind != "screenshot" || o.Tokens != bench.AnthropicImageTokens(1280, 800) || o.TokensOpenAI != bench.OpenAIImageTokens(1280, 800) {
				t.Errorf("%s: observation %d: got %+v, want screenshot %d counted at 1280×800", tc.id, i, o, i)
			}
			b, err := os.ReadFile(filepath.Join(root, o.File))
			if err != nil {
				t.Fatal(err)
			}
			img, err := png.Decode(bytes.NewReader(b))
			if err != nil {
				t.Fatalf("%s: %s is not a PNG: %v", tc.id, o.File, err)
			}
			if size := img.Bounds().Size(); size.X != 1280 || size.Y != 800 || o.Bytes != len(b) {
				t.Errorf("%s: %s: got %dx%d, %d bytes (recorded %d), want 1280x800", tc.id, o.File, size.X, size.Y, len(b), o.Bytes)
			}
		}
	}
}
