package affordances

import (
	"encoding/base64"
	"encoding/binary"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"sync"

	"github.com/affordances/affordances-go/internal/wirejson"
	"github.com/cespare/xxhash/v2"
)

// A graphScratch is what serving a graph reuses from one request to the
// next: the buffer of its bytes, where its actions' summaries begin in it,
// and the hash of its ETag.
type graphScratch struct {
	buf []byte
	at  []int
	tag *xxhash.Digest
}

var scratches = sync.Pool{New: func() any {
	return &graphScratch{buf: make([]byte, 0, 4096), tag: xxhash.New()}
}}

// graphETag returns the ETag of graph, encoded by encodeGraph from actions
// with their summaries at at: the XXH64 (seed 0) of the graph's bytes,
// each action's summary replaced by the XXH64 of its encoding, big-endian,
// in base64url, quoted. It names the graph's exact bytes: a summary's
// digest has a fixed length, so the bytes hashed spell out the graph, and
// the same site answers the same graph with the same ETag in every
// process and every release (XXH64 is a published algorithm; TestETag
// pins one), without hashing its descriptors' schemas on every request.
// An ETag only tells a cache whether what it holds is current, so it
// wants a fast hash, not a cryptographic one.
func (sc *graphScratch) graphETag(graph []byte, actions []listed, at []int) string {
	sc.tag.Reset()
	from := 0
	for i, l := range actions {
		sc.tag.Write(graph[from:at[i]])
		sc.tag.Write(l.a.summaryDigest[:])
		from = at[i] + len(l.a.summaryJSON)
	}
	sc.tag.Write(graph[from:])
	var sum [8]byte
	binary.BigEndian.PutUint64(sum[:], sc.tag.Sum64())
	var quoted [13]byte // "11 characters of base64"
	quoted[0], quoted[12] = '"', '"'
	base64.RawURLEncoding.Encode(quoted[1:12], sum[:])
	return string(quoted[:])
}

// A lastGraph is the last anonymous graph of a route and its ETag header:
// the same bytes again get the same ETag without hashing them, as an
// anonymous graph often does (every agent that is not signed in sees the
// same page).
type lastGraph struct {
	mu   sync.Mutex
	body []byte
	etag string // body's ETag
}

// lookup returns the ETag of graph's bytes if they are the last ones put,
// else "".
func (lg *lastGraph) lookup(graph []byte) string {
	if !lg.mu.TryLock() {
		return "" // another request is at it: hash
	}
	defer lg.mu.Unlock()
	if string(lg.body) != string(graph) {
		return ""
	}
	return lg.etag
}

// put keeps graph's bytes (a copy) and their ETag.
func (lg *lastGraph) put(graph []byte, etag string) {
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
	dst = wirejson.AppendString(dst, req.route.site.full(req.Page))
	dst = append(dst, `,"route":`...)
	dst = wirejson.AppendString(dst, req.route.pattern)
	dst = append(dst, `,"entities":`...)
	if st.Entities == nil {
		dst = append(dst, "{}"...)
	} else {
		var err error
		if dst, err = wirejson.AppendObject(dst, st.Entities); err != nil {
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
			dst = wirejson.AppendString(dst, l.reason)
		}
		dst = append(dst, '}')
	}
	dst = append(dst, ']')
	if len(st.Nav) > 0 {
		dst = append(dst, `,"nav":`...)
		dst = appendNav(dst, st.Nav, req.route.site)
	}
	if st.MD != "" {
		dst = append(dst, `,"md":`...)
		dst = wirejson.AppendString(dst, st.MD)
	}
	return append(dst, '}'), nil
}

// loadFor authenticates the requester of r and loads the page's state for
// them with page (r itself, or the request of the page a fragment is
// of), as a graph, its Markdown and its fragment do. who is anonymous when authentication
// failed: then err says why, in the language of a requester not known.
func (s *Site) loadFor(r, page *http.Request, rt *Route, params []param) (req *Request, who Principal, err error) {
	who, err = s.authenticate(r)
	if err != nil {
		return nil, Principal{}, err
	}
	req, err = s.load(r.Context(), page, rt, params, who)
	return req, who, err
}

// serveGraph answers a request that asked for the page's graph.
func (s *Site) serveGraph(w http.ResponseWriter, r *http.Request, next http.Handler) {
	rt, params := s.route(r, next, r.URL.EscapedPath())
	if rt == nil {
		s.writeError(w, r, ErrNotMine)
		return
	}
	req, p, err := s.loadFor(r, r, rt, params)
	if err != nil {
		s.writeErrorFor(w, r, p, err)
		return
	}
	sc := scratches.Get().(*graphScratch)
	defer func() {
		if cap(sc.buf) <= maxPooled {
			scratches.Put(sc)
		}
	}()
	var room [8]listed // the listing of most pages, on the stack
	ls := rt.appendListing(room[:0], r.Context(), req)
	sc.at = slices.Grow(sc.at[:0], len(ls))[:len(ls)]
	body, err := encodeGraph(sc.buf[:0], req, ls, sc.at)
	if err != nil {
		s.writeErrorFor(w, r, p, fmt.Errorf("affordances: encoding the graph of %s: %w", req.Page, err))
		return
	}
	sc.buf = body
	// The graph's ETag names its bytes, so an agent that polls a page
	// sends If-None-Match and pays nothing while nothing changed.
	var etag string
	if p.Anonymous() {
		etag = rt.lastAnonymous.lookup(body)
	}
	if etag == "" {
		etag = sc.graphETag(body, ls, sc.at)
		if p.Anonymous() {
			rt.lastAnonymous.put(body, etag)
		}
	}
	if etagMatches(r.Header["If-None-Match"], etag) { // the canonical key, as Header.Values reads it
		s.writeBody(w, &http.Request{Method: http.MethodHead}, http.StatusNotModified, nil, etag)
		return
	}
	s.writeBody(w, r, http.StatusOK, body, etag)
}

// etagMatches reports whether an If-None-Match header lists etag, or is
// "*" (RFC 9110, section 13.1.2: the weak comparison).
func etagMatches(lines []string, etag string) bool {
	for _, line := range lines {
		for tag := range strings.SplitSeq(line, ",") {
			tag = strings.TrimPrefix(strings.TrimSpace(tag), "W/")
			if tag == etag || tag == "*" {
				return true
			}
		}
	}
	return false
}
