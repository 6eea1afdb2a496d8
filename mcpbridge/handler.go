package mcpbridge

import (
	"context"
	"net/http"
	"net/http/httptest"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/affordances/affordances-go/internal/weborigin"
)

// Handler returns the MCP endpoint (streamable HTTP) a publisher mounts on
// its own site, such as at /mcp, and advertises as "mcp" in its site index
// (SiteOptions.MCP). Its tools are those of [NewServer], limited to the
// site: a URL argument may be a path, and a URL of another origin is
// refused. The calls reach site, the site's own handler, in process, at
// the origin the MCP request came to and from the address of the MCP
// request that carries each tool call (its RemoteAddr), so an anonymous
// client is counted by its own address, as a call it made itself would be
// (docs/protocol.md decision 5), even when its session moves to another;
// each carries the MCP caller's bearer token (its Authorization header),
// or else opts.Token; opts.Sites, opts.Tokens and opts.Transports are not
// used, the site being its own. opts may be nil; its HTTPClient is not
// used. A request with an Origin header other than the site's own (its
// scheme and Host: a page of another site, which a browser lets post
// here) is refused with 403, as the MCP transport asks of servers.
func Handler(site http.Handler, opts *Options) http.Handler {
	var o Options
	if opts != nil {
		o = *opts
	}
	h := StreamableHTTP(func(r *http.Request) *mcp.Server {
		b := &bridge{opts: o, origin: ownOrigin(r)}
		b.opts.HTTPClient = &http.Client{Transport: inProcess{site, r.RemoteAddr}, Timeout: 30 * time.Second}
		s := b.server()
		s.AddReceivingMiddleware(fromCaller)
		return s
	})
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if origins := r.Header.Values("Origin"); len(origins) > 0 {
			if got, err := weborigin.Parse(origins[0]); len(origins) > 1 || err != nil || got != ownOrigin(r) {
				http.Error(w, "Forbidden: this site's MCP endpoint serves no page of another origin", http.StatusForbidden)
				return
			}
		}
		r = r.Clone(r.Context())
		r.Header.Set(callerHeader, r.RemoteAddr) // what the client sent under this name goes
		h.ServeHTTP(w, r)
	})
}

// StreamableHTTP serves the MCP servers getServer makes over streamable
// HTTP in both the versions the bridge speaks: a request of MCP 2026-07-28
// or later (its MCP-Protocol-Version header says so, from its first
// request, server/discover), which is stateless, by the go-sdk's
// stateless handler; any other (2025-11-25 and before, which starts a
// session with initialize) by its stateful one, whose sessions keep what
// each model was shown (docs/model-text.md). `affordances mcp --http`
// serves [NewServer]'s this way, and [Handler] a site's own.
func StreamableHTTP(getServer func(*http.Request) *mcp.Server) http.Handler {
	stateful := mcp.NewStreamableHTTPHandler(getServer, nil)
	stateless := mcp.NewStreamableHTTPHandler(getServer, &mcp.StreamableHTTPOptions{Stateless: true})
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		r = r.Clone(r.Context())
		r.Header.Del(oneRequestHeader) // the bridge's word, never a client's
		if r.Header.Get("Mcp-Session-Id") == "" && r.Header.Get("MCP-Protocol-Version") >= mcpStateless {
			r.Header.Set(oneRequestHeader, "1")
			stateless.ServeHTTP(w, r)
			return
		}
		stateful.ServeHTTP(w, r)
	})
}

// mcpStateless is the MCP version from which the protocol is stateless:
// 2026-07-28 (an ISO date, so later versions sort after it).
const mcpStateless = "2026-07-28"

// stateless reports whether req is of a stateless MCP version, 2026-07-28
// or later.
func stateless(req *mcp.CallToolRequest) bool { return req.ProtocolVersion() >= mcpStateless }

// oneRequestHeader marks a request [StreamableHTTP] serves statelessly,
// whose session is its own: nothing shown is kept for it, as nothing could
// be read back (over stdio or a stateful stream a session lasts, whatever
// its MCP version). StreamableHTTP sets it, having removed any a client
// sent.
const oneRequestHeader = "Affordances-Mcp-One-Request"

// oneRequest reports whether req came in a request whose session is its
// own.
func oneRequest(req *mcp.CallToolRequest) bool {
	return req.Extra != nil && req.Extra.Header.Get(oneRequestHeader) != ""
}

// callerHeader carries, from [Handler] to [fromCaller], the RemoteAddr of
// an MCP request: the SDK gives a method the headers of the request that
// carried it, not its address, and makes a session's server from the
// session's first request only.
const callerHeader = "Affordances-Mcp-Caller"

// callerKey is the context key of the address [fromCaller] read.
type callerKey struct{}

// fromCaller is the servers' middleware that gives a method, and so the
// calls of a tool to the site, the address of the MCP request carrying it.
func fromCaller(next mcp.MethodHandler) mcp.MethodHandler {
	return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
		if x := req.GetExtra(); x != nil && x.Header.Get(callerHeader) != "" {
			ctx = context.WithValue(ctx, callerKey{}, x.Header.Get(callerHeader))
		}
		return next(ctx, method, req)
	}
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
// handler, without a network, as if from the address of the MCP request
// whose method made it ([fromCaller]), or else from remoteAddr.
type inProcess struct {
	h          http.Handler
	remoteAddr string
}

func (t inProcess) RoundTrip(req *http.Request) (*http.Response, error) {
	r := req.Clone(req.Context())
	r.RequestURI = req.URL.RequestURI()
	r.RemoteAddr = t.remoteAddr
	if a, ok := req.Context().Value(callerKey{}).(string); ok {
		r.RemoteAddr = a
	}
	if r.Host == "" {
		r.Host = req.URL.Host
	}
	w := httptest.NewRecorder()
	t.h.ServeHTTP(w, r)
	res := w.Result()
	res.Request = req
	return res, nil
}
