package affordances

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"net/http"
	"slices"
	"strings"

	"github.com/affordances/affordances-go/internal/mediatype"
)

// markdownType is the media type of a page's Markdown.
const markdownType = "text/markdown"

// wantsMarkdown reports whether r asks for Markdown rather than HTML: its
// Accept lists text/markdown, by name, at least as high as text/html (an
// agent-readiness checker's Accept: text/markdown; never a browser's,
// which names text/html and */*).
func wantsMarkdown(r *http.Request) bool {
	accept := r.Header.Values("Accept")
	md := mediatype.Quality(accept, markdownType)
	return md > 0 && md >= mediatype.Quality(accept, "text/html")
}

// serveMarkdown answers a page of a route asked for as Markdown with what
// the page shows, for the same requester as its graph: the state's MD
// when the app wrote one, else a rendering of its entities, actions and
// nav that a person could read. A path that is no route's goes to next.
func (s *Site) serveMarkdown(w http.ResponseWriter, r *http.Request, next http.Handler) {
	rt, params := s.route(r, next, r.URL.EscapedPath())
	if rt == nil {
		s.servePage(w, next, &Page{site: s, http: r})
		return
	}
	req, p, err := s.loadFor(r, r, rt, params)
	if errors.Is(err, ErrNotMine) { // the app's page after all (a catch-all route's): as the app serves it
		s.servePage(w, next, &Page{site: s, http: r})
		return
	}
	if err != nil {
		s.writeErrorFor(w, r, p, err)
		return
	}
	body := []byte(req.State.MD)
	if len(body) == 0 {
		body = s.markdown(req, rt.listing(r.Context(), req))
	}
	s.writeTyped(w, r, http.StatusOK, markdownType+"; charset=utf-8", body, "")
}

// markdown renders a page's state and listing as Markdown: its page as
// the title, each entity (a table for an array of objects), the actions
// it lists (those unavailable with why), and its nav as links.
func (s *Site) markdown(req *Request, ls []listed) []byte {
	var b bytes.Buffer
	fmt.Fprintf(&b, "# %s\n", mdText(s.full(req.Page)))
	// The entities' plain values first, as a list, then the sections of
	// the objects and tables.
	var values, sections bytes.Buffer
	for _, name := range slices.Sorted(maps.Keys(req.State.Entities)) {
		var v any
		raw, err := json.Marshal(req.State.Entities[name])
		if err != nil || json.Unmarshal(raw, &v) != nil {
			continue
		}
		mdEntity(&values, &sections, name, v)
	}
	if values.Len() > 0 {
		b.WriteString("\n")
		b.Write(values.Bytes())
	}
	b.Write(sections.Bytes())
	if len(ls) > 0 {
		b.WriteString("\n## What can be done here\n\n")
		for _, l := range ls {
			fmt.Fprintf(&b, "- `%s`: %s", l.a.Name, mdText(l.a.Description))
			if !l.available {
				fmt.Fprintf(&b, " (not now: %s)", mdText(l.reason))
			}
			b.WriteString("\n")
		}
		fmt.Fprintf(&b, "\nAn agent calls one by POSTing `{\"action\": NAME, \"input\": {...}}` to this page with `Content-Type: %s`.\n", MediaType)
	}
	if len(req.State.Nav) > 0 {
		b.WriteString("\n## Links\n\n")
		for _, n := range req.State.Nav {
			label := n.Label
			if label == "" {
				label = n.To
			}
			fmt.Fprintf(&b, "- [%s](%s)\n", mdText(label), mdDestination(s.full(n.To)))
		}
	}
	return b.Bytes()
}

// mdEntity writes one entity: to sections, a table for an array of
// objects or a list of fields for an object; to values, a line for
// anything else.
func mdEntity(values, b *bytes.Buffer, name string, v any) {
	switch t := v.(type) {
	case []any:
		if cols := mdColumns(t); cols != nil {
			heads := make([]string, len(cols))
			for i, c := range cols {
				heads[i] = mdText(c)
			}
			fmt.Fprintf(b, "\n## %s\n\n| %s |\n|%s\n", mdText(name), strings.Join(mdCells(heads), " | "), strings.Repeat(" --- |", len(cols)))
			for _, row := range t {
				cells := make([]string, len(cols))
				for i, c := range cols {
					if x, ok := row.(map[string]any)[c]; ok {
						cells[i] = mdValue(x)
					}
				}
				fmt.Fprintf(b, "| %s |\n", strings.Join(mdCells(cells), " | "))
			}
			return
		}
	case map[string]any:
		fmt.Fprintf(b, "\n## %s\n\n", mdText(name))
		for _, k := range slices.Sorted(maps.Keys(t)) {
			fmt.Fprintf(b, "- %s: %s\n", mdText(k), mdValue(t[k]))
		}
		return
	}
	fmt.Fprintf(values, "- %s: %s\n", mdText(name), mdValue(v))
}

// mdColumns returns the keys of a table of objects, sorted; nil when v
// holds anything but objects, or none.
func mdColumns(rows []any) []string {
	seen := map[string]bool{}
	for _, r := range rows {
		m, ok := r.(map[string]any)
		if !ok {
			return nil
		}
		for k := range m {
			seen[k] = true
		}
	}
	if len(seen) == 0 {
		return nil
	}
	return slices.Sorted(maps.Keys(seen))
}

// mdValue writes a JSON value as text on one line: a string as it is,
// anything else as JSON, neither making Markdown of its own (mdText).
func mdValue(v any) string {
	if s, ok := v.(string); ok {
		return mdText(s)
	}
	b, _ := json.Marshal(v)
	return mdText(string(b))
}

// mdCells escapes each cell's pipes, so that none splits the row; the
// cells are text already (mdValue, mdText).
func mdCells(cells []string) []string {
	out := make([]string, len(cells))
	for i, c := range cells {
		out[i] = strings.ReplaceAll(c, "|", `\|`)
	}
	return out
}

// mdText is a site's string as Markdown text on one line (mdLine): its
// punctuation that Markdown reads (a link, emphasis, a tag, code) escaped
// with a backslash, so that it says only what it says.
func mdText(s string) string {
	var b strings.Builder
	for _, r := range mdLine(s) {
		if strings.ContainsRune("\\`*_{}[]()<>#+!~&", r) { // a cell's | is mdCells' to escape
			b.WriteByte('\\')
		}
		b.WriteRune(r)
	}
	return b.String()
}

// mdDestination is a link's destination as Markdown reads one whole, in
// angle brackets: its spaces, brackets, backslashes and any character
// not printable percent-encoded, so that no site string closes the link
// or starts another.
func mdDestination(to string) string {
	var b strings.Builder
	b.WriteByte('<')
	for _, c := range []byte(to) {
		if c <= ' ' || c >= 0x7f || strings.IndexByte("<>()\\[]\"'`", c) >= 0 {
			fmt.Fprintf(&b, "%%%02X", c)
			continue
		}
		b.WriteByte(c)
	}
	b.WriteByte('>')
	return b.String()
}
