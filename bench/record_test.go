package bench_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/affordances/affordances-go/bench"
)

// TestImageTokens: the two published formulas, on the bench's viewport and
// on images they scale down.
func TestImageTokens(t *testing.T) {
	for _, tc := range []struct{ w, h, anthropic, openai int }{
		{1280, 800, 1365, 1105},  // 1,024,000 px / 750; 3 x 2 tiles after the short side goes to 768
		{390, 844, 439, 425},     // a phone: nothing to scale, 1 x 2 tiles
		{3000, 1000, 1093, 1445}, // 1568 x 523 for Anthropic; 2048 x 683, 4 x 2 tiles for OpenAI
	} {
		if got := bench.AnthropicImageTokens(tc.w, tc.h); got != tc.anthropic {
			t.Errorf("Anthropic %dx%d: got %d, want %d", tc.w, tc.h, got, tc.anthropic)
		}
		if got := bench.OpenAIImageTokens(tc.w, tc.h); got != tc.openai {
			t.Errorf("OpenAI %dx%d: got %d, want %d", tc.w, tc.h, got, tc.openai)
		}
	}
}

// TestRecorder: each observation is kept on disk and counted.
func TestRecorder(t *testing.T) {
	root := t.TempDir()
	rec, err := bench.NewRecorder(root, "shop-x/affordances")
	if err != nil {
		t.Fatal(err)
	}
	if err := rec.Text(0, "graph", "start /", []byte(`{"v":"0","page":"/"}`), "json"); err != nil {
		t.Fatal(err)
	}
	obs := rec.Observations()
	if len(obs) != 1 || obs[0].Tokens == 0 || obs[0].Bytes != 20 || obs[0].File != "shop-x/affordances/00-graph.json" {
		t.Fatalf("got %+v", obs)
	}
	if b, err := os.ReadFile(filepath.Join(root, obs[0].File)); err != nil || string(b) != `{"v":"0","page":"/"}` {
		t.Errorf("kept file: %q %v", b, err)
	}
}
