// Package htmlcheck answers questions about a page's HTML that AAL asks:
// how many elements a CSS selector matches.
package htmlcheck

import (
	"bytes"
	"fmt"

	"github.com/andybalholm/cascadia"
	"golang.org/x/net/html"
)

// A Page is parsed HTML.
type Page struct{ root *html.Node }

// Parse parses an HTML document the way a browser would.
func Parse(doc []byte) (*Page, error) {
	root, err := html.Parse(bytes.NewReader(doc))
	if err != nil {
		return nil, err
	}
	return &Page{root: root}, nil
}

// Count returns how many elements of p the CSS selector matches, or an
// error when the selector is not valid CSS.
func (p *Page) Count(selector string) (int, error) {
	sel, err := cascadia.Parse(selector)
	if err != nil {
		return 0, fmt.Errorf("selector %q: %w", selector, err)
	}
	return len(cascadia.QueryAll(p.root, sel)), nil
}
