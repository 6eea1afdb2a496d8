package affordances

import (
	"encoding/json"
	"fmt"
	"math"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"time"
)

// buffers holds the buffers answers are encoded in ([putBuffer]).
var buffers = sync.Pool{New: func() any { b := make([]byte, 0, 4096); return &b }}

// maxPooled bounds the capacity of a buffer the pools keep: a page's rare
// large graph or answer is not held for every request after it.
const maxPooled = 64 << 10

// putBuffer returns buf to buffers, unless it grew past maxPooled.
func putBuffer(buf *[]byte) {
	if cap(*buf) <= maxPooled {
		buffers.Put(buf)
	}
}

// writeDocument writes an Affordances document with the headers of
// docs/protocol.md decision 3; HEAD gets the headers alone.
func (s *Site) writeDocument(w http.ResponseWriter, r *http.Request, status int, v any) {
	body, err := json.Marshal(v)
	if err != nil {
		s.writeError(w, r, fmt.Errorf("affordances: encoding a document: %w", err))
		return
	}
	s.writeBody(w, r, status, body, "")
}

// writeBody writes an encoded Affordances document, with its length when
// there is one (body not nil; a HEAD gets the length its GET would): the
// client knows where the document ends without chunked framing, whatever
// its size (net/http sets Content-Length itself only for a body under 2
// kB written at once); and its ETag, unless etag is "".
func (s *Site) writeBody(w http.ResponseWriter, r *http.Request, status int, body []byte, etag string) {
	s.writeTyped(w, r, status, MediaType, body, etag)
}

// writeTyped is [Site.writeBody] for a document of another type (a
// page's Markdown).
func (s *Site) writeTyped(w http.ResponseWriter, r *http.Request, status int, contentType string, body []byte, etag string) {
	// What Set and Add would store, without their canonicalisation and a
	// slice per header: the response's own values, in one array, each
	// slice capped at its one value so that an Add copies it.
	vals := [...]string{contentType, "Accept", "private, no-store", "nosniff", "", etag}
	h := w.Header()
	if etag != "" {
		h["Etag"] = vals[5:6:6]
	}
	h["Content-Type"] = vals[0:1:1]
	if vary, ok := h["Vary"]; ok {
		h["Vary"] = append(vary, "Accept")
	} else {
		h["Vary"] = vals[1:2:2]
	}
	if s.lang.matcher != nil {
		h["Vary"] = append(h["Vary"], "Accept-Language")
	}
	h["Cache-Control"] = vals[2:3:3]
	h["X-Content-Type-Options"] = vals[3:4:4]
	if body != nil {
		vals[4] = strconv.Itoa(len(body))
		h["Content-Length"] = vals[4:5:5]
	}
	w.WriteHeader(status)
	if r.Method != http.MethodHead {
		w.Write(body)
	}
}

// writeError writes err as an error delta with its status, in the
// language of an anonymous requester (Accept-Language).
func (s *Site) writeError(w http.ResponseWriter, r *http.Request, err error) {
	s.writeResponse(w, r, Principal{}, s.failure(err, "request"))
}

// writeErrorFor is writeError once the requester is known: the library's
// words in who's language (docs/protocol.md decision 13).
func (s *Site) writeErrorFor(w http.ResponseWriter, r *http.Request, who Principal, err error) {
	s.writeResponse(w, r, who, s.failure(err, "request"))
}

// failure is the response of a call refused or failed with err: its status
// (docs/protocol.md decision 2), and Retry-After for rate_limited, in whole seconds.
func (s *Site) failure(err error, where string) *response {
	e := s.public(err, where)
	res := answered(e.HTTPStatus(), nil, Delta{Error: e})
	if e.Code == RateLimited || e.RetryAfter > 0 {
		res.header = http.Header{"Retry-After": {strconv.Itoa(retrySeconds(e.RetryAfter))}}
	}
	return res
}

// encode appends the encoding of res's delta to dst, the one place a
// delta is encoded, with the library's words in who's language
// ([Site.localizeResponse]). A delta that cannot be encoded becomes
// internal, and so does res.status.
func (s *Site) encode(dst []byte, r *http.Request, who Principal, res *response) []byte {
	s.localizeResponse(r, who, res)
	body, err := encodeDelta(dst, res.delta, res.changed)
	if err != nil {
		s.logger.Error("affordances: encoding a delta", "err", err)
		res.status = http.StatusInternalServerError
		body, _ = encodeDelta(dst[:0], &Delta{Error: internalError}, changeSet{})
	}
	return body
}

// challenge sets WWW-Authenticate on a 401 (docs/protocol.md decision 2) and on a
// refusal for want of scope (grant.go): Bearer, the scope the call needs
// (RFC 6750, section 3.1), and the site's protected resource metadata
// when it takes OAuth tokens (RFC 9728, section 5.1), so that an assistant
// knows where to ask for a token or for more.
func (s *Site) challenge(h http.Header, r *http.Request, status int, e *Error) {
	var params []string
	switch {
	case e != nil && e.scope != "":
		params = append(params, `error="insufficient_scope"`, `scope="`+string(e.scope)+`"`)
	case status != http.StatusUnauthorized:
		return
	}
	if m := s.opts.OAuth; m != "" {
		if strings.HasPrefix(m, "/") {
			m = s.origin(r) + m
		}
		params = append(params, `resource_metadata="`+m+`"`)
	}
	h.Set("WWW-Authenticate", strings.TrimSuffix("Bearer "+strings.Join(params, ", "), " "))
}

// retrySeconds is a Retry-After of d: whole seconds, at least 1.
func retrySeconds(d time.Duration) int { return max(int(math.Ceil(d.Seconds())), 1) }

// writeResponse writes an agent's answer: the response's headers, and
// WWW-Authenticate on a 401 or a refusal for want of scope; its delta
// encoded with the library's words in who's language, or a kept answer's
// bytes as they are.
func (s *Site) writeResponse(w http.ResponseWriter, r *http.Request, who Principal, res *response) {
	body := res.body
	if body == nil {
		buf := buffers.Get().(*[]byte)
		defer putBuffer(buf)
		body = s.encode((*buf)[:0], r, who, res)
		*buf = body
	}
	addHeader(w.Header(), res.header)
	var e *Error
	if res.delta != nil {
		e = res.delta.Error
	}
	s.challenge(w.Header(), r, res.status, e)
	s.writeBody(w, r, res.status, body, "")
}

// addHeader adds every value of from to h.
func addHeader(h, from http.Header) {
	for k, vs := range from {
		h[k] = append(h[k], vs...)
	}
}
