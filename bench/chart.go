package bench

import (
	"fmt"
	"html"
	"math"
	"slices"
	"strings"
)

// modeColors are the Okabe-Ito colours, which colour-blind readers tell
// apart, one per mode.
var modeColors = map[string]string{
	"mcp":            "#D55E00",
	"playwright-mcp": "#56B4E9",
	"affordances":    "#009E73",
	"webmcp":         "#CC79A7",
	"axtree":         "#E69F00",
	"screenshot":     "#0072B2",
	// Okabe-Ito's black: its yellow is too light on white.
	"playwright-mcp-lean": "#000000",
	// Past Okabe-Ito's eight: the grey that goes with them.
	"playwright-mcp-webmcp": "#999999",
}

// Chart draws the tokens of each task by mode (latest observation only,
// screenshots by Anthropic's formula) at the report's first size as
// horizontal bars on a log scale, one group of bars per task, the shop's
// tasks then the board's: an SVG document with no script and no external
// resource.
func (r *Report) Chart() string {
	if len(r.Sizes) == 0 {
		v := *r
		v.Sizes = []Size{DemoSize}
		r = &v
	}
	r = r.first()
	modes := r.columns()
	var names []string
	for _, c := range modes {
		if !strings.HasSuffix(c.label, "(OpenAI)") {
			names = append(names, c.mode)
		}
	}
	const (
		left, plotW, right = 250, 640, 70
		top                = 132
		barH, barGap       = 6, 1
		groupGap           = 9
		siteGap            = 30
	)
	groupH := len(names)*(barH+barGap) + groupGap
	lo, hi := math.Inf(1), 0.0
	for _, run := range r.Runs {
		if run.Tokens > 0 {
			lo, hi = math.Min(lo, float64(run.Tokens)), math.Max(hi, float64(run.Tokens))
		}
	}
	if hi == 0 {
		lo, hi = 1, 10
	}
	min10, max10 := niceBelow(lo), niceAbove(hi)
	x := func(v float64) float64 {
		if v <= min10 {
			return left
		}
		return left + plotW*(math.Log10(v)-math.Log10(min10))/(math.Log10(max10)-math.Log10(min10))
	}
	sites := 0
	for _, s := range Sites() {
		for _, t := range r.Tasks {
			if t.Site == s {
				sites++
				break
			}
		}
	}
	height := top + len(r.Tasks)*groupH + sites*siteGap + 62
	width := left + plotW + right

	var w strings.Builder
	p := func(format string, args ...any) { fmt.Fprintf(&w, format, args...) }
	p(`<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" viewBox="0 0 %d %d" font-family="system-ui, -apple-system, 'Segoe UI', Helvetica, Arial, sans-serif">`+"\n", width, height, width, height)
	p(`<rect width="100%%" height="100%%" fill="#ffffff"/>` + "\n")
	p(`<text x="16" y="28" font-size="19" font-weight="600" fill="#111">Tokens an agent reads to do each task, by how it perceives pages</text>` + "\n")
	p(`<text x="16" y="48" font-size="13" fill="#444">Sum of the observations of each run (latest observation only), at %s size: o200k tokens, screenshots by Anthropic's published estimate.</text>`+"\n", html.EscapeString(string(r.Sizes[0])))
	p(`<text x="16" y="64" font-size="13" fill="#444">Log scale. Every mode follows the same oracle plan, so each bar is a lower bound; no model was called.</text>` + "\n")
	// Legend.
	lx := 16.0
	for _, m := range names {
		p(`<rect x="%.0f" y="78" width="14" height="14" rx="2" fill="%s"/>`, lx, color(m))
		p(`<text x="%.0f" y="90" font-size="13" fill="#222">%s</text>`+"\n", lx+20, html.EscapeString(m))
		lx += 20 + float64(8*len(m)) + 28
	}
	p(`<text x="%.0f" y="90" font-size="12" fill="#666">✗ = not verified</text>`+"\n", lx+10)
	// Decades: grid lines and labels, above the plot and below it.
	bottom := height - 52
	for v := math.Pow(10, math.Floor(math.Log10(min10))); v <= max10*1.0001; v *= 10 {
		for mult := 1.0; mult < 10 && v*mult <= max10*1.0001; mult++ {
			if v*mult < min10*0.9999 {
				continue
			}
			gx := x(v * mult)
			if mult > 1 && mult != 2 && mult != 5 {
				p(`<line x1="%.1f" y1="%d" x2="%.1f" y2="%d" stroke="#f0f0f0" stroke-width="1"/>`+"\n", gx, top-12, gx, bottom)
				continue
			}
			stroke := "#d0d0d0"
			if mult > 1 {
				stroke = "#e4e4e4"
			}
			label := thousands(int(v * mult))
			p(`<line x1="%.1f" y1="%d" x2="%.1f" y2="%d" stroke="%s" stroke-width="1"/>`, gx, top-12, gx, bottom, stroke)
			p(`<text x="%.1f" y="%d" font-size="12" fill="#555" text-anchor="middle">%s</text>`, gx, top-18, label)
			p(`<text x="%.1f" y="%d" font-size="12" fill="#555" text-anchor="middle">%s</text>`+"\n", gx, bottom+16, label)
		}
	}
	y := top
	for _, s := range Sites() {
		first := true
		for _, t := range r.Tasks {
			if t.Site != s {
				continue
			}
			if first {
				y += siteGap
				title := map[string]string{"shop": "The shop", "board": "The task board"}[s]
				p(`<text x="16" y="%d" font-size="14" font-weight="600" fill="#111">%s</text>`+"\n", y-10, title)
				first = false
			}
			mid := y + (len(names)*(barH+barGap))/2
			p(`<text x="%d" y="%d" font-size="12" fill="#222" text-anchor="end" dominant-baseline="middle" font-family="ui-monospace, 'SF Mono', Menlo, Consolas, monospace">%s</text>`+"\n",
				left-8, mid, html.EscapeString(t.ID))
			for i, m := range names {
				by := y + i*(barH+barGap)
				run := r.run(t.ID, m)
				if run == nil {
					continue
				}
				bx := x(float64(run.Tokens))
				p(`<rect x="%d" y="%d" width="%.1f" height="%d" fill="%s"><title>%s, %s: %s tokens</title></rect>`,
					left, by, math.Max(bx-left, 1), barH, color(m), html.EscapeString(t.ID), m, thousands(run.Tokens))
				label := thousands(run.Tokens)
				if !run.Verified {
					label = "✗ " + label
				}
				p(`<text x="%.1f" y="%d" font-size="9" fill="#555" dominant-baseline="middle">%s</text>`+"\n", bx+3, by+barH/2+1, label)
			}
			y += groupH
		}
	}
	p(`<line x1="%d" y1="%d" x2="%d" y2="%d" stroke="#888" stroke-width="1"/>`+"\n", left, top-12, left, bottom)
	switch {
	case slices.Contains(names, "playwright-mcp-webmcp"):
		p(`<text x="16" y="%d" font-size="12" fill="#555">webmcp and playwright-mcp-webmcp count the tools and their results, not the page's content, which an agent also reads (see report.md).</text>`+"\n", height-10)
	case slices.Contains(names, "webmcp"):
		p(`<text x="16" y="%d" font-size="12" fill="#555">webmcp counts the tools and their results only, not the page's content, which an agent in the browser also reads (see report.md).</text>`+"\n", height-10)
	}
	p("</svg>\n")
	return w.String()
}

// niceAbove returns the smallest 1, 2 or 5 times a power of ten that is
// at least v: where the chart's scale ends.
func niceAbove(v float64) float64 {
	p := math.Pow(10, math.Floor(math.Log10(v)))
	for _, m := range []float64{1, 2, 5, 10} {
		if m*p >= v {
			return m * p
		}
	}
	return 10 * p
}

// niceBelow returns the largest 1, 2 or 5 times a power of ten that is at
// most v: where the chart's scale starts.
func niceBelow(v float64) float64 {
	p := math.Pow(10, math.Floor(math.Log10(v)))
	for _, m := range []float64{5, 2, 1} {
		if m*p <= v {
			return m * p
		}
	}
	return p
}

func color(mode string) string {
	if c, ok := modeColors[mode]; ok {
		return c
	}
	return "#999999"
}
