package affordances

import (
	"context"
	"fmt"
	"net/url"
	"regexp"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/affordances/affordances-go/aal"
)

// RouteOptions configures a [Route].
type RouteOptions struct {
	// Description is one line on what the page is for, shown in the index.
	Description string
	// State loads the page's state for one requester; a NotFound [*Error]
	// when the page does not exist, [ErrNotMine] when it is not the route's.
	State func(ctx context.Context, r *Request) (*State, error)
	// Flow places the route's pages in a multi-step task ("checkout", step 2
	// of 4), in their AAL fragments.
	Flow *aal.Flow
}

// A Route is a page pattern of a [Site], such as "/products/[slug]", with its
// state loader and actions.
type Route struct {
	// entities are the entity keys the route's states have had, for the
	// check of Effects; kept only when an action declares Effects, until
	// every key an Effects names has been seen (effectsSeen).
	entities    sync.Map
	hasEffects  bool
	effectsSeen atomic.Bool
	site        *Site
	pattern     string    // the wire form, with [param] segments and SiteOptions.Prefix
	segments    []segment // none for "/"
	literals    int
	opts        RouteOptions
	actions     []*action
	byName      map[string]*action
	// lastAnonymous is the route's last anonymous graph, for its ETag.
	lastAnonymous lastGraph
}

// A segment is one segment of a route's pattern: a literal, a parameter
// matching one segment, or a catch-all matching the rest of the path.
type segment struct {
	literal string // "" for a parameter and for slash
	param   string
	rest    bool // a catch-all, always the last segment
	slash   bool // the empty segment after a trailing slash, always the last
}

// Route declares a page pattern in [http.ServeMux]'s syntax, or the wire's
// (/products/[slug]): literal segments, {name} for one segment, and last
// {name...} for one or more ([Request.Param]); one ending in / is that page
// alone. Segments match unescaped; a literal wins over a parameter, a
// parameter over a catch-all. opts may be nil. Route panics on a pattern it
// cannot serve (a method or host, a segment mixing text and a parameter), one
// another route has, and after [Site.Handler].
func (s *Site) Route(pattern string, opts *RouteOptions) *Route {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.mustDeclare(fmt.Sprintf("affordances: Route(%q)", pattern))
	segs, err := parsePattern(pattern)
	if n := len(segs); err == nil && n > 0 && segs[n-1].literal == "index" {
		page := strings.TrimSuffix(wirePattern(segs[:n-1]), "/") + "/"
		err = fmt.Errorf("its AAL fragment path would be the one of %s, %s", page, aal.FragmentPath(page))
	}
	if err != nil {
		panic(fmt.Sprintf("affordances: Route(%q): %v", pattern, err))
	}
	rt := &Route{site: s, pattern: s.opts.Prefix + wirePattern(segs), segments: segs, byName: map[string]*action{}}
	if opts != nil {
		rt.opts = *opts
	}
	for _, sg := range segs {
		if sg.literal != "" {
			rt.literals++
		}
	}
	for _, other := range s.routes {
		if other.shape() == rt.shape() {
			panic(fmt.Sprintf("affordances: Route(%q): matches the same paths as %q", pattern, other.pattern))
		}
	}
	s.routes = append(s.routes, rt)
	return rt
}

// shape is the pattern with parameter names erased: two routes of the same
// shape match the same paths.
func (rt *Route) shape() string {
	var b strings.Builder
	for _, sg := range rt.segments {
		b.WriteByte('/')
		switch {
		case sg.slash:
		case sg.rest:
			b.WriteString("[...]")
		case sg.literal == "":
			b.WriteString("[]")
		default:
			b.WriteString(sg.literal)
		}
	}
	return b.String()
}

// wirePattern writes segs as the protocol's wire does: /products/[slug].
func wirePattern(segs []segment) string {
	if len(segs) == 0 {
		return "/"
	}
	var b strings.Builder
	for _, sg := range segs {
		b.WriteByte('/')
		switch {
		case sg.slash:
		case sg.rest:
			b.WriteString("[..." + sg.param + "]")
		case sg.literal == "":
			b.WriteString("[" + sg.param + "]")
		default:
			b.WriteString(sg.literal)
		}
	}
	return b.String()
}

var paramName = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*$`)

func parsePattern(p string) ([]segment, error) {
	if strings.ContainsAny(p, " \t") || !strings.HasPrefix(p, "/") {
		return nil, fmt.Errorf("a route is a path starting with /, without the method or host a mux pattern may have")
	}
	if p == "/" || p == "/{$}" {
		return nil, nil
	}
	parts := strings.Split(p[1:], "/")
	segs := make([]segment, 0, len(parts))
	seen := map[string]bool{}
	for i, part := range parts {
		var sg segment
		last := i == len(parts)-1
		switch {
		case (part == "" || part == "{$}") && last:
			segs = append(segs, segment{slash: true}) // "/a/" is "/a/{$}": that page alone
			continue
		case part == "":
			return nil, fmt.Errorf("empty segment: only the last may be, after a trailing slash")
		case part == "{$}":
			return nil, fmt.Errorf("{$} only ends a pattern that ends in /")
		case isBraced(part, '{', '}'):
			name, rest := strings.CutSuffix(part[1:len(part)-1], "...")
			sg = segment{param: name, rest: rest}
		case isBraced(part, '[', ']'):
			name, rest := strings.CutPrefix(part[1:len(part)-1], "...")
			sg = segment{param: name, rest: rest}
		case strings.ContainsAny(part, "{}[]"):
			return nil, fmt.Errorf("segment %q mixes a parameter with text: a segment is a literal or a whole {param}", part)
		default:
			lit, err := url.PathUnescape(part)
			if err != nil {
				return nil, fmt.Errorf("segment %q: %v", part, err)
			}
			sg = segment{literal: lit}
		}
		if sg.literal == "" {
			if !paramName.MatchString(sg.param) {
				return nil, fmt.Errorf("segment %q: a parameter's name is a Go identifier", part)
			}
			if seen[sg.param] {
				return nil, fmt.Errorf("parameter %q twice", sg.param)
			}
			seen[sg.param] = true
		}
		if sg.rest && !last {
			return nil, fmt.Errorf("segment %q: a catch-all parameter must be the last segment", part)
		}
		segs = append(segs, sg)
	}
	return segs, nil
}

func isBraced(s string, open, close byte) bool {
	return len(s) >= 2 && s[0] == open && s[len(s)-1] == close
}

type param struct{ name, value string }
