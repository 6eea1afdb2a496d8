// Package collection pages a collection entity, so that a page's graph
// stays small (seed 000, "Graph": about 2,000 tokens) and the rest of the
// collection is one nav link away.
//
// A state loader reads the page its URL asks for with [Paginate], puts
// that page's items (and the [Page] itself, which says which page it is)
// in its entities, and adds [Page.Nav] to its nav. A loader that reads the
// page from a database before it knows the count asks [Offset] first, so
// that its query never sees a page number no collection has. The HTML page
// is rendered from the same state, so it pages the same way: its template
// links [Page.Prev] and [Page.Next].
package collection

import (
	"fmt"
	"math"
	"net/url"
	"strconv"

	affordances "github.com/affordances/affordances-go"
)

// Param is the query parameter that names a page: ?page=2. Page 1 is the
// URL without it.
const Param = "page"

// A Page is one page of a collection. Encoded in JSON, as an entity, it is
// {"page":2,"pages":3,"total":120,"size":50}.
type Page struct {
	Number int `json:"page"`  // from 1
	Pages  int `json:"pages"` // at least 1: an empty collection has one empty page
	Total  int `json:"total"` // items in the collection
	Size   int `json:"size"`  // items a page; the last may hold fewer
	// Next and Prev are the URLs of the pages beside this one: the
	// request's path and query, Param changed; "" at either end. They are
	// the app's paths, as its mux sees them: the graph's nav gets a
	// SiteOptions.Prefix from the site, an HTML link must add it itself.
	Next string `json:"-"`
	Prev string `json:"-"`
	noun string
}

// Paginate returns the page that the query parameter Param of u asks for,
// of a collection of total items, size a page; noun names the items for
// the nav's labels ("tasks"). Without Param, it is page 1. A value that
// is not a page of the collection (0, "two", 9 of 3 pages) is an
// [affordances.NotFound] error that says which pages there are: a stale
// link to a list that shrank tells the agent where it ends, rather than
// showing another page at its URL. A size below 1 is an error.
func Paginate(u *url.URL, total, size int, noun string) (Page, error) {
	if size < 1 {
		return Page{}, fmt.Errorf("collection: a page of %s holds at least one item, not %d", noun, size)
	}
	p := Page{Number: 1, Pages: max(1, (total+size-1)/size), Total: max(total, 0), Size: size, noun: noun}
	q := u.Query()
	if v := q.Get(Param); q.Has(Param) {
		n, ok := number(v, size)
		if !ok || n > p.Pages {
			return Page{}, affordances.NewError(affordances.NotFound,
				fmt.Sprintf("There is no page %q of %s: pages 1 to %d.", v, noun, p.Pages))
		}
		p.Number = n
	}
	at := func(n int) string {
		if n == 1 {
			q.Del(Param)
		} else {
			q.Set(Param, strconv.Itoa(n))
		}
		if len(q) == 0 {
			return u.EscapedPath()
		}
		return u.EscapedPath() + "?" + q.Encode()
	}
	if p.Number < p.Pages {
		p.Next = at(p.Number + 1)
	}
	if p.Number > 1 {
		p.Prev = at(p.Number - 1)
	}
	return p, nil
}

// Offset returns the offset of the first item of the page that the query
// parameter Param of u asks for, size a page, before the collection is
// counted: a database reads LIMIT size OFFSET it, then [Paginate], with
// the count, checks the page against it. A value that cannot be a page of
// any collection (0, -1, "two", or one so large that its offset overflows
// an int) is the [affordances.NotFound] error, so no query is made with
// it; a page past the end is Paginate's to refuse. A size below 1 is an
// error.
func Offset(u *url.URL, size int, noun string) (int, error) {
	if size < 1 {
		return 0, fmt.Errorf("collection: a page of %s holds at least one item, not %d", noun, size)
	}
	q := u.Query()
	if !q.Has(Param) {
		return 0, nil
	}
	v := q.Get(Param)
	n, ok := number(v, size)
	if !ok {
		return 0, affordances.NewError(affordances.NotFound, fmt.Sprintf("There is no page %q of %s.", v, noun))
	}
	return (n - 1) * size, nil
}

// number reads v as a page number, size items a page: a whole number from
// 1 whose items' offsets, to the end of the page, fit an int.
func number(v string, size int) (int, bool) {
	n, err := strconv.Atoi(v)
	if err != nil || n < 1 || n > math.MaxInt/size {
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
