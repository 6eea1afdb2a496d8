// Package htmlcheck answers questions about a page's HTML that AAL asks:
// how many elements a CSS selector matches, and whether they follow
// docs/protocol.md decision 11.
package htmlcheck

import (
	"bytes"
	"fmt"

	affordances "github.com/affordances/affordances-go"
	"github.com/affordances/affordances-go/aal"
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

// Inputs returns the data-aal-input attribute of each element of p the CSS
// selector matches, in document order, nil for an element without one:
// HasWebMCPTools reports whether the page declares WebMCP tools: the data
// block of the library's script (script#affordances-webmcp) or a form
// with toolname.
func (p *Page) HasWebMCPTools() bool {
	scripted, _ := p.Count(`script#affordances-webmcp`)
	declared, _ := p.Count(`form[toolname]`)
	return scripted+declared > 0
}

// what [aal.CheckMatches] checks.
func (p *Page) Inputs(selector string) ([]*string, error) {
	sel, err := cascadia.Parse(selector)
	if err != nil {
		return nil, fmt.Errorf("selector %q: %w", selector, err)
	}
	var inputs []*string
	for _, n := range cascadia.QueryAll(p.root, sel) {
		var input *string
		for _, attr := range n.Attr {
			if attr.Namespace == "" && attr.Key == aal.InputAttribute {
				input = &attr.Val
				break
			}
		}
		inputs = append(inputs, input)
	}
	return inputs, nil
}

// Attrs returns the value of the attribute name of each element of p the
// CSS selector matches that has it, in document order: the href of every
// a[href], say.
func (p *Page) Attrs(selector, name string) ([]string, error) {
	sel, err := cascadia.Parse(selector)
	if err != nil {
		return nil, fmt.Errorf("selector %q: %w", selector, err)
	}
	var vals []string
	for _, n := range cascadia.QueryAll(p.root, sel) {
		for _, attr := range n.Attr {
			if attr.Namespace == "" && attr.Key == name {
				vals = append(vals, attr.Val)
				break
			}
		}
	}
	return vals, nil
}

// A SelectorProblem is what is wrong with the elements one affordance's
// selector matches on a page (docs/protocol.md decision 11).
type SelectorProblem struct {
	Index    int // of the affordance in its fragment
	ID       string
	Selector string
	Problems []string // sentences; an invalid selector is one
}

// CheckSelectors checks every affordance of a page's fragment against the
// page's HTML by docs/protocol.md decision 11, its action's availability taken from
// the page's graph (an affordance that is no action of the graph counts as
// available).
func (p *Page) CheckSelectors(actions []affordances.ActionDescriptor, f *aal.Fragment) []SelectorProblem {
	available := map[string]bool{} // affordance id -> its action's availability
	for _, a := range actions {
		available[aal.ID(a.Name)] = a.Available
	}
	var out []SelectorProblem
	for i, a := range f.Affordances {
		inputs, err := p.Inputs(a.Selector)
		problems := []string{}
		if err != nil {
			problems = append(problems, err.Error())
		} else {
			avail, isAction := available[a.ID]
			problems = aal.CheckMatches(avail || !isAction, inputs)
		}
		if len(problems) > 0 {
			out = append(out, SelectorProblem{Index: i, ID: a.ID, Selector: a.Selector, Problems: problems})
		}
	}
	return out
}
