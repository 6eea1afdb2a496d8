// Package collection pages a collection entity, so that a page's graph
// stays small (docs/protocol.md §7: about 2,000 tokens) and the rest of the
// collection is one nav link away.
//
// A state loader reads the page its URL asks for with [Paginate], puts
// that page's items (and the [Page] itself, which says which page it is)
// in its entities, and adds [Page.Nav] to its nav. A loader that reads the
// page from a database before it knows the count asks [Offset] first, so
// that its query never sees a page number no collection has. The HTML page
// is rendered from the same state, so it pages the same way: its template
// links [Page.Prev] and [Page.Next]. An app that pages its lists already,
// by a parameter of its own or by offset (?offset=100), says so with a
// [Pager], so that the graph of a URL lists what its HTML lists.
package collection

import (
	"cmp"
	"fmt"
	"math"
	"net/url"
	"strconv"

	affordances "github.com/affordances/affordances-go"
)

// Param is the query parameter that names a page: ?page=2. Page 1 is the
// URL without it.
const Param = "page"

// A Pager reads which page of a collection a URL asks for as the app's
// own pages name it: by the page's number (?page=2, from 1), or by the
// offset of its first item (?offset=100, from 0, a multiple of Size), as
// an app that pages its lists already does. The first page is the URL
// without the parameter.
type Pager struct {
	Size int    // items a page, at least 1
	Noun string // the items, for the nav's labels and the errors: "tasks"
	// Param is the query parameter; "" is [Param].
	Param string
	// ByOffset says Param holds the offset of the page's first item,
	// not the page's number.
	ByOffset bool
}

// A Page is one page of a collection. Encoded in JSON, as an entity, it is
// {"page":2,"pages":3,"total":120,"size":50}.
type Page struct {
	Number int `json:"page"`  // from 1
	Pages  int `json:"pages"` // at least 1: an empty collection has one empty page
	Total  int `json:"total"` // items in the collection
	Size   int `json:"size"`  // items a page; the last may hold fewer
	// Next and Prev are the URLs of the pages beside this one: the
	// request's path and query, the pager's parameter changed; "" at
	// either end. They are the app's paths, as its mux sees them: the
	// graph's nav gets a SiteOptions.Prefix from the site, an HTML link
	// must add it itself.
	Next string `json:"-"`
	Prev string `json:"-"`
	noun string
}

// Paginate returns the page that the query parameter Param of u asks for,
// of a collection of total items, size a page; noun names the items for
// the nav's labels ("tasks"). It is [Pager.Paginate] of a pager by page
// number.
func Paginate(u *url.URL, total, size int, noun string) (Page, error) {
	return Pager{Size: size, Noun: noun}.Paginate(u, total)
}

// Offset returns the offset of the first item of the page that the query
// parameter Param of u asks for, size a page, before the collection is
// counted. It is [Pager.Offset] of a pager by page number.
func Offset(u *url.URL, size int, noun string) (int, error) {
	return Pager{Size: size, Noun: noun}.Offset(u)
}

// Paginate returns the page u asks for of a collection of total items.
// Without the parameter, it is the first. A value that is not a page of
// the collection (0, "two", 9 of 3 pages, an offset past the end or
// between two pages) is an [affordances.NotFound] error that says which
// pages there are: a stale link to a list that shrank tells the agent
// where it ends, rather than showing another page at its URL. A Size
// below 1 is an error.
func (p Pager) Paginate(u *url.URL, total int) (Page, error) {
	if p.Size < 1 {
		return Page{}, fmt.Errorf("collection: a page of %s holds at least one item, not %d", p.Noun, p.Size)
	}
	pg := Page{Number: 1, Pages: max(1, (total+p.Size-1)/p.Size), Total: max(total, 0), Size: p.Size, noun: p.Noun}
	q := u.Query()
	param := cmp.Or(p.Param, Param)
	if v := q.Get(param); q.Has(param) {
		n, ok := p.number(v)
		if !ok || n > pg.Pages {
			return Page{}, affordances.NewError(affordances.NotFound, p.none(v, pg.Pages))
		}
		pg.Number = n
	}
	at := func(n int) string {
		if n == 1 {
			q.Del(param)
		} else if p.ByOffset {
			q.Set(param, strconv.Itoa((n-1)*p.Size))
		} else {
			q.Set(param, strconv.Itoa(n))
		}
		if len(q) == 0 {
			return u.EscapedPath()
		}
		return u.EscapedPath() + "?" + q.Encode()
	}
	if pg.Number < pg.Pages {
		pg.Next = at(pg.Number + 1)
	}
	if pg.Number > 1 {
		pg.Prev = at(pg.Number - 1)
	}
	return pg, nil
}

// none says that v names no page, of pages when known (above 0).
func (p Pager) none(v string, pages int) string {
	switch {
	case p.ByOffset && pages > 0:
		return fmt.Sprintf("There is no page of %s at %s %q: %s 0 to %d, by %d.", p.Noun, cmp.Or(p.Param, Param), v, cmp.Or(p.Param, Param), (pages-1)*p.Size, p.Size)
	case p.ByOffset:
		return fmt.Sprintf("There is no page of %s at %s %q: a multiple of %d from 0.", p.Noun, cmp.Or(p.Param, Param), v, p.Size)
	case pages > 0:
		return fmt.Sprintf("There is no page %q of %s: pages 1 to %d.", v, p.Noun, pages)
	}
	return fmt.Sprintf("There is no page %q of %s.", v, p.Noun)
}

// Offset returns the offset of the first item of the page u asks for,
// before the collection is counted: a database reads LIMIT Size OFFSET
// it, then [Pager.Paginate], with the count, checks the page against it.
// A value that cannot be a page of any collection (0 or -1 for a page,
// an offset between two pages, "two", or one so large that its offset
// overflows an int) is the [affordances.NotFound] error, so no query is
// made with it; a page past the end is Paginate's to refuse. A Size
// below 1 is an error.
func (p Pager) Offset(u *url.URL) (int, error) {
	if p.Size < 1 {
		return 0, fmt.Errorf("collection: a page of %s holds at least one item, not %d", p.Noun, p.Size)
	}
	q := u.Query()
	param := cmp.Or(p.Param, Param)
	if !q.Has(param) {
		return 0, nil
	}
	v := q.Get(param)
	n, ok := p.number(v)
	if !ok {
		return 0, affordances.NewError(affordances.NotFound, p.none(v, 0))
	}
	return (n - 1) * p.Size, nil
}

// number reads v as the number of a page: a page number from 1, or an
// offset from 0 that is a multiple of Size; either way one whose items'
// offsets, to the end of the page, fit an int.
func (p Pager) number(v string) (int, bool) {
	n, err := strconv.Atoi(v)
	if err != nil {
		return 0, false
	}
	if p.ByOffset {
		if n < 0 || n%p.Size != 0 {
			return 0, false
		}
		n = n/p.Size + 1
	}
	if n < 1 || n > math.MaxInt/p.Size {
		return 0, false
	}
	return n, true
}

// Start and End bound the page's items in the whole collection, from 0:
// items[p.Start():p.End()]; a database reads LIMIT p.Size OFFSET p.Start().
func (p Page) Start() int { return (p.Number - 1) * p.Size }

// End is one past the page's last item; see [Page.Start].
func (p Page) End() int { return min(p.Number*p.Size, p.Total) }

// Items returns p's items of all, the whole collection (of p.Total items).
func Items[T any](all []T, p Page) []T {
	return all[min(p.Start(), len(all)):min(p.End(), len(all))]
}

// Nav returns the links to the pages beside p, labeled so that a model
// knows what lies behind them: "Next 50 of 120 tasks", "Previous 50 of
// 120 tasks". A collection of one page has none.
func (p Page) Nav() []affordances.NavLink {
	var links []affordances.NavLink
	if p.Next != "" {
		n := min(p.Size, p.Total-p.End())
		links = append(links, affordances.NavLink{To: p.Next, Label: fmt.Sprintf("Next %d of %d %s", n, p.Total, p.noun)})
	}
	if p.Prev != "" {
		links = append(links, affordances.NavLink{To: p.Prev, Label: fmt.Sprintf("Previous %d of %d %s", p.Size, p.Total, p.noun)})
	}
	return links
}
