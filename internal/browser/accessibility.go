package browser

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/chromedp/cdproto/accessibility"
	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/chromedp"
)

// An AXNode is one node of a page's accessibility tree: what a screen
// reader announces.
type AXNode struct {
	// Role is the node's ARIA role, explicit or implied: "button", "link",
	// "textbox", "heading", "main", "navigation", "StaticText"...
	Role string
	// Name is its accessible name: a label's text, an aria-label, a
	// button's or link's text, its whitespace collapsed and trimmed as the
	// accessible name computation says (some Chromium versions keep a
	// label's trailing space).
	Name string
	// Depth is how many nodes it is under the root (0), counting only the
	// nodes Accessibility returns.
	Depth int
	// Level is a heading's level, 1 to 6; 0 for anything else.
	Level int
}

// Accessibility returns the page's accessibility tree as Chromium computes
// it, in document order, without the nodes assistive technology ignores.
func (p *Page) Accessibility(ctx context.Context) ([]AXNode, error) {
	res, err := runT(ctx, p, func(ctx context.Context, t *chromedp.Target) (accessibility.GetFullAXTreeResult, error) {
		return cdp.Call(ctx, t, accessibility.GetFullAXTree, accessibility.GetFullAXTreeParams{})
	})
	if err != nil {
		return nil, fmt.Errorf("browser: accessibility tree: %w", err)
	}
	byID := map[accessibility.NodeID]*accessibility.Node{}
	var roots []*accessibility.Node
	for _, n := range res.Nodes {
		byID[n.NodeID] = n
	}
	for _, n := range res.Nodes {
		if _, ok := byID[n.ParentID]; n.ParentID == "" || !ok {
			roots = append(roots, n)
		}
	}
	var out []AXNode
	var walk func(n *accessibility.Node, depth int)
	walk = func(n *accessibility.Node, depth int) {
		if !n.Ignored {
			ax := AXNode{Role: axString(n.Role), Name: strings.Join(strings.Fields(axString(n.Name)), " "), Depth: depth}
			for _, prop := range n.Properties {
				if prop.Name == accessibility.PropertyNameLevel && prop.Value != nil {
					json.Unmarshal(prop.Value.Value, &ax.Level) // a level is a number
				}
			}
			out = append(out, ax)
			depth++
		}
		for _, id := range n.ChildIDs {
			if c, ok := byID[id]; ok {
				walk(c, depth)
			}
		}
	}
	for _, r := range roots {
		walk(r, 0)
	}
	return out, nil
}

// axString returns the string in v, or "".
func axString(v *accessibility.Value) string {
	if v == nil || len(v.Value) == 0 {
		return ""
	}
	var s string
	if json.Unmarshal(v.Value, &s) != nil {
		return ""
	}
	return s
}
