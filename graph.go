package affordances

import (
	"context"
	"crypto/sha256"
	"encoding/base64"
	"hash"
	"sync"
)

// listed is one action of a graph as a requester sees it.
type listed struct {
	a         *action
	available bool
	reason    string
	broken    bool // its guard panicked: a call gets internal
}

// descriptor returns the wire form of l.
func (l listed) descriptor() ActionDescriptor {
	return ActionDescriptor{ActionSummary: l.a.summary, Available: l.available, Reason: l.reason}
}

// listing evaluates the route's actions for req: those listed, in
// declaration order, with their availability (CLARIFICATIONS 1).
func (rt *Route) listing(ctx context.Context, req *Request) []listed {
	return rt.appendListing(make([]listed, 0, len(rt.actions)), ctx, req)
}

// appendListing appends the listing of req to ls.
func (rt *Route) appendListing(ls []listed, ctx context.Context, req *Request) []listed {
	for _, a := range rt.actions {
		if !a.listedFor(req) {
			continue
		}
		l := listed{a: a, available: true}
		if a.Expose != ExposePublic && req.Principal.Anonymous() {
			l.available, l.reason = false, rt.site.opts.SignInReason
		} else if a.Guard != nil {
			if ok, reason, panicked := a.guard(ctx, rt.site, req); !ok {
				if reason == "" {
					reason = "Not available right now."
				}
				l.available, l.reason, l.broken = false, reason, panicked
			}
		}
		ls = append(ls, l)
	}
	return ls
}

// listedFor reports whether the action appears in req's graph and index
// (CLARIFICATIONS 1).
// A panicking Visible hides the action.
func (a *action) listedFor(req *Request) (listed bool) {
	if a.Expose == "" {
		return false
	}
	if a.Visible == nil {
		return true
	}
	defer func() {
		if v := recover(); v != nil {
			req.route.site.logger.Error("affordances: panic in Visible of "+a.Name, "panic", v)
			listed = false
		}
	}()
	return a.Visible(req)
}

// guard runs the action's guard; a panicking guard says no.
func (a *action) guard(ctx context.Context, s *Site, req *Request) (ok bool, reason string, panicked bool) {
	defer func() {
		if v := recover(); v != nil {
			s.logger.Error("affordances: panic in guard of "+a.Name, "panic", v)
			ok, reason, panicked = false, "Not available right now.", true
		}
	}()
	ok, reason = a.Guard(ctx, req)
	return ok, reason, false
}

var buffers = sync.Pool{New: func() any { b := make([]byte, 0, 4096); return &b }}

// A graphScratch is what serving a graph reuses from one request to the
// next: the buffer of its bytes, where its actions' summaries begin in it,
// and the hash of its ETag.
type graphScratch struct {
	buf []byte
	at  []int
	tag hash.Hash
	sum [sha256.Size]byte // tag's sum, here rather than on the heap for each request
}

var scratches = sync.Pool{New: func() any {
	return &graphScratch{buf: make([]byte, 0, 4096), tag: sha256.New()}
}}

// graphETag returns the ETag of graph, encoded by encodeGraph from actions
// with their summaries at at: the first 16 bytes of the SHA-256 of the
// graph's bytes, each action's summary replaced by the SHA-256 of its
// encoding, in base64url, quoted. It names the graph's exact bytes: a
// summary's digest has a fixed length, so the bytes hashed spell out the
// graph, and the same site answers the same graph with the same ETag in
// every process, without hashing its descriptors' schemas on every
// request.
func (sc *graphScratch) graphETag(graph []byte, actions []listed, at []int) string {
	sc.tag.Reset()
	from := 0
	for i, l := range actions {
		sc.tag.Write(graph[from:at[i]])
		sc.tag.Write(l.a.summaryDigest[:])
		from = at[i] + len(l.a.summaryJSON)
	}
	sc.tag.Write(graph[from:])
	sc.tag.Sum(sc.sum[:0])
	var quoted [24]byte // "22 characters of base64"
	quoted[0], quoted[23] = '"', '"'
	base64.RawURLEncoding.Encode(quoted[1:23], sc.sum[:16])
	return string(quoted[:])
}

// A lastGraph is the last anonymous graph of a route and its ETag header:
// the same bytes again get the same ETag without hashing them, as an
// anonymous graph often does (every agent that is not signed in sees the
// same page).
type lastGraph struct {
	mu   sync.Mutex
	body []byte
	// etag is the value of the ETag header of body, a slice of one shared
	// by every response that has it, as documentHeader's.
	etag []string
}

// lookup returns the ETag header of graph's bytes if they are the last
// ones put, else nil.
func (lg *lastGraph) lookup(graph []byte) []string {
	if !lg.mu.TryLock() {
		return nil // another request is at it: hash
	}
	defer lg.mu.Unlock()
	if string(lg.body) != string(graph) {
		return nil
	}
	return lg.etag
}

// put keeps graph's bytes (a copy) and their ETag header, a slice of one.
func (lg *lastGraph) put(graph []byte, etag []string) {
	if !lg.mu.TryLock() {
		return
	}
	defer lg.mu.Unlock()
	lg.body = append(lg.body[:0], graph...)
	lg.etag = etag
}

// encodeGraph appends the graph of req's page to dst. It writes what
// json.Marshal of the [Graph] would, byte for byte, but copies each
// action's precomputed summary instead of encoding its schemas again.
// It sets at[i] to where the summary of actions[i] begins in dst.
func encodeGraph(dst []byte, req *Request, actions []listed, at []int) ([]byte, error) {
	st := req.State
	dst = append(dst, `{"v":"0","page":`...)
	dst = appendString(dst, req.Page)
	dst = append(dst, `,"route":`...)
	dst = appendString(dst, req.route.pattern)
	dst = append(dst, `,"entities":`...)
	if st.Entities == nil {
		dst = append(dst, "{}"...)
	} else {
		var err error
		if dst, err = appendObject(dst, st.Entities); err != nil {
			return nil, err
		}
	}
	dst = append(dst, `,"actions":[`...)
	for i, l := range actions {
		if i > 0 {
			dst = append(dst, ',')
		}
		at[i] = len(dst)
		dst = append(dst, l.a.summaryJSON...)
		if l.available {
			dst = append(dst, `,"available":true}`...)
			continue
		}
		dst = append(dst, `,"available":false`...)
		if l.reason != "" {
			dst = append(dst, `,"reason":`...)
			dst = appendString(dst, l.reason)
		}
		dst = append(dst, '}')
	}
	dst = append(dst, ']')
	if len(st.Nav) > 0 {
		dst = append(dst, `,"nav":`...)
		dst = appendNav(dst, st.Nav)
	}
	if st.MD != "" {
		dst = append(dst, `,"md":`...)
		dst = appendString(dst, st.MD)
	}
	return append(dst, '}'), nil
}
