package conformance

import (
	"fmt"

	"github.com/affordances/affordances-go/internal/graphsize"
)

// sizeChecks is the check of a graph's size (docs/protocol.md §12): about
// 2,000 tokens at most.
func sizeChecks() []check {
	return []check{
		{"v0.size.tokens", secGraph, "A graph should stay small. About 2,000 tokens is a good ceiling (o200k).", Should, func(s *suite) verdict {
			max, where := 0, ""
			v := eachPage(s, func(p *page) (verdict, bool) {
				w, err := graphsize.Weigh(p.graphX.body)
				if err != nil {
					return skip("%v", err), false
				}
				if w.Tokens > max {
					max, where = w.Tokens, p.path
				}
				return fail(p.graphX, "the graph of %s passes about %s tokens: %s; page or summarize it, with nav to the rest", p.path, graphsize.Comma(graphsize.Ceiling), w), !w.Over()
			})
			if v.outcome == Pass {
				v.reason = fmt.Sprintf("largest %d tokens (%s)", max, where)
			}
			return v
		}},
	}
}
