package mcpbridge

import (
	"net/http"
	"net/http/httptest"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/affordances/affordances-go/internal/weborigin"
)

var defaultHTTPClient = &http.Client{Timeout: 30 * time.Second}

// Handler returns the MCP endpoint (streamable HTTP) a publisher mounts on
// its own site, such as at /mcp, and advertises as "mcp" in its site index
// (SiteOptions.MCP). Its tools are those of [NewServer], limited to the
// site: a URL argument may be a path, and a URL of another origin is
// refused. The calls reach site, the site's own handler, in process, at
// the origin the MCP request came to and from the address of the MCP
// client that opened the session (its request's RemoteAddr), so an
// anonymous client is counted by its own address, as a call it made itself
// would be (CLARIFICATIONS 5); each carries the MCP caller's bearer token
// (its Authorization header), or else opts.Token; opts.Sites and
// opts.Tokens are not used, the site being its own. opts may be nil;
// its HTTPClient is not used. A request with an Origin header other than
// the site's own (its scheme and Host: a page of another site, which a
// browser lets post here) is refused with 403, as the MCP transport asks
// of servers.
func Handler(site http.Handler, opts *Options) http.Handler {
	var o Options
	if opts != nil {
		o = *opts
	}
	h := mcp.NewStreamableHTTPHandler(func(r *http.Request) *mcp.Server {
		b := &bridge{opts: o, origin: ownOrigin(r)}
		b.opts.HTTPClient = &http.Client{Transport: inProcess{site, r.RemoteAddr}, Timeout: 30 * time.Second}
		return b.server()
	}, nil)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if origins := r.Header.Values("Origin"); len(origins) > 0 {
			if got, err := weborigin.Parse(origins[0]); len(origins) > 1 || err != nil || got != ownOrigin(r) {
				http.Error(w, "Forbidden: this site's MCP endpoint serves no page of another origin", http.StatusForbidden)
				return
			}
		}
		h.ServeHTTP(w, r)
	})
}

// ownOrigin is the origin r came to: its scheme and Host.
func ownOrigin(r *http.Request) string {
	scheme := "http"
	if r.TLS != nil {
		scheme = "https"
	}
	if o, err := weborigin.Parse(scheme + "://" + r.Host); err == nil {
		return o
	}
	return scheme + "://" + r.Host
}

// inProcess is an http.RoundTripper that serves each request with a
// handler, without a network, as if from the client address remoteAddr.
type inProcess struct {
	h          http.Handler
	remoteAddr string
}

func (t inProcess) RoundTrip(req *http.Request) (*http.Response, error) {
	r := req.Clone(req.Context())
	r.RequestURI = req.URL.RequestURI()
	r.RemoteAddr = t.remoteAddr
	if r.Host == "" {
		r.Host = req.URL.Host
	}
	w := httptest.NewRecorder()
	t.h.ServeHTTP(w, r)
	res := w.Result()
	res.Request = req
	return res, nil
}
