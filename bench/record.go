package bench

import (
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"sync"

	"github.com/affordances/affordances-go/internal/graphsize"
)

// An Observation is one thing an agent read: a graph, a delta, a tool
// list, a screenshot, an accessibility snapshot.
type Observation struct {
	// Step is the number of the UI interaction or call it followed, from
	// 0 (the start page) on.
	Step int `json:"step"`
	// Kind is what it is: "graph", "delta", "fragment" (an AAL
	// fragment), "tools", "result", "screenshot" or "axtree".
	Kind string `json:"kind"`
	// What says what was done before it, for a person reading the report:
	// "click add-to-cart", "call addToCart".
	What string `json:"what"`
	// Bytes is its size as the agent would receive it.
	Bytes int `json:"bytes"`
	// Tokens is its o200k token count; for a screenshot, Anthropic's
	// estimate of the image's tokens.
	Tokens int `json:"tokens"`
	// TokensOpenAI is, for a screenshot, OpenAI's estimate (high detail).
	TokensOpenAI int `json:"tokensOpenAI,omitempty"`
	// File is where it is kept, relative to the report.
	File string `json:"file"`
}

// A Recorder keeps the observations of one run of one task in one mode:
// each on disk under its directory, counted. It is safe for concurrent use.
type Recorder struct {
	dir string // where files go
	rel string // dir relative to the report

	mu    sync.Mutex
	obs   []Observation
	tools []ToolsFrom // the tokens of the tool definitions, from each step they were given on

	onRecord func(Observation) // Run's progress; nil: none
}

// NewRecorder returns a recorder that writes under root/rel.
func NewRecorder(root, rel string) (*Recorder, error) {
	dir := filepath.Join(root, rel)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, fmt.Errorf("bench: %w", err)
	}
	return &Recorder{dir: dir, rel: rel}, nil
}

// CountTokens returns the o200k tokens of text, counted as lint and
// conform count a graph's (graphsize.Count).
func CountTokens(text string) (int, error) {
	n, err := graphsize.Count(text)
	if err != nil {
		return 0, fmt.Errorf("bench: %w", err)
	}
	return n, nil
}

// Text records a text observation (a graph, a delta, a snapshot), kept as
// it was read, with ext its file's extension ("json", "txt", "yaml").
func (r *Recorder) Text(step int, kind, what string, body []byte, ext string) error {
	n, err := CountTokens(string(body))
	if err != nil {
		return err
	}
	return r.add(Observation{Step: step, Kind: kind, What: what, Bytes: len(body), Tokens: n}, body, ext)
}

// ToolDefinitions records the definitions of the tools the model is
// given, which it reads on every request it makes: the tools as a model
// API takes them, name, description and input schema each, in JSON. They
// are kept as tools.json and counted once; [TaskRun.RequestTokens] adds
// them to each request.
func (r *Recorder) ToolDefinitions(body []byte) error { return r.ToolDefinitionsFrom(0, body) }

// A ToolsFrom is the tokens of the tool definitions a model is given on
// each request from a step on, until another ToolsFrom.
type ToolsFrom struct {
	Step   int `json:"step"`
	Tokens int `json:"tokens"`
}

// ToolDefinitionsFrom records the definitions of the tools the model is
// given from step on, in place of those it was given before: a server
// whose tools change during the run (the page's WebMCP tools, in the
// playwright-mcp-webmcp mode). Those of step 0 are kept as tools.json,
// those of a later step as tools-from-<step>.json; those recorded again
// for a step replace that step's. [TaskRun.RequestTokens] adds to each
// request the definitions of its step.
func (r *Recorder) ToolDefinitionsFrom(step int, body []byte) error {
	n, err := CountTokens(string(body))
	if err != nil {
		return err
	}
	name := "tools.json"
	if step > 0 {
		name = fmt.Sprintf("tools-from-%02d.json", step)
	}
	if err := os.WriteFile(filepath.Join(r.dir, name), body, 0o644); err != nil {
		return fmt.Errorf("bench: %w", err)
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	r.tools = slices.DeleteFunc(r.tools, func(t ToolsFrom) bool { return t.Step >= step })
	r.tools = append(r.tools, ToolsFrom{Step: step, Tokens: n})
	return nil
}

// ToolTokens returns the tokens of the tool definitions recorded, 0 when
// none were; the most, when they changed during the run.
func (r *Recorder) ToolTokens() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	most := 0
	for _, t := range r.tools {
		most = max(most, t.Tokens)
	}
	return most
}

// ToolTokensFrom returns the tokens of the tool definitions recorded from
// each step on, by step; nil when none were.
func (r *Recorder) ToolTokensFrom() []ToolsFrom {
	r.mu.Lock()
	defer r.mu.Unlock()
	return slices.Clone(r.tools)
}

// Image records a screenshot, a PNG of width by height pixels.
func (r *Recorder) Image(step int, what string, png []byte, width, height int) error {
	return r.add(Observation{Step: step, Kind: "screenshot", What: what, Bytes: len(png),
		Tokens: AnthropicImageTokens(width, height), TokensOpenAI: OpenAIImageTokens(width, height)}, png, "png")
}

func (r *Recorder) add(o Observation, body []byte, ext string) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	name := fmt.Sprintf("%02d-%s.%s", len(r.obs), o.Kind, ext)
	if err := os.WriteFile(filepath.Join(r.dir, name), body, 0o644); err != nil {
		return fmt.Errorf("bench: %w", err)
	}
	o.File = filepath.ToSlash(filepath.Join(r.rel, name))
	r.obs = append(r.obs, o)
	if r.onRecord != nil {
		r.onRecord(o)
	}
	return nil
}

// Observations returns what was recorded, in order.
func (r *Recorder) Observations() []Observation {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]Observation(nil), r.obs...)
}

// AnthropicImageTokens estimates an image's tokens as Anthropic's vision
// documentation does: width × height / 750, after scaling the image down
// to fit 1568 pixels on its long edge and about 1.15 megapixels.
func AnthropicImageTokens(width, height int) int {
	w, h := float64(width), float64(height)
	if long := math.Max(w, h); long > 1568 {
		w, h = w*1568/long, h*1568/long
	}
	if mp := w * h; mp > 1_150_000 {
		s := math.Sqrt(1_150_000 / mp)
		w, h = w*s, h*s
	}
	return int(math.Round(w * h / 750))
}

// OpenAIImageTokens counts an image's tokens as OpenAI's tile formula does
// for high detail: scaled to fit 2048 × 2048, then its short side to 768,
// 170 tokens for each 512-pixel tile and 85 more.
func OpenAIImageTokens(width, height int) int {
	w, h := float64(width), float64(height)
	if long := math.Max(w, h); long > 2048 {
		w, h = w*2048/long, h*2048/long
	}
	if short := math.Min(w, h); short > 768 {
		w, h = w*768/short, h*768/short
	}
	tiles := math.Ceil(w/512) * math.Ceil(h/512)
	return int(85 + 170*tiles)
}
