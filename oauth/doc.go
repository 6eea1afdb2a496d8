// Package oauth makes a site built with package affordances an OAuth 2.1
// authorization server of its own, so that the assistants people already
// run (MCP hosts: Claude, ChatGPT, VS Code, Cursor) connect to its /mcp
// and act as the person, within what the person granted
// (docs/protocol.md decision 14).
//
// An assistant that reaches the site's /mcp without a token is answered
// 401 with the site's protected resource metadata (RFC 9728); it finds
// the server's metadata (RFC 8414), names itself by its metadata
// document's URL or registers (RFC 7591), and sends the person to the
// site's consent page, where they sign in with the site's own sign-in and
// grant AAL's trust classes: reading, ordinary changes, personal data,
// spending up to an amount they set, administration. The token it gets is
// for this site alone (RFC 8707), good for a few minutes, refreshed by a
// refresh token that changes at each use, and a refresh token used twice
// ends the grant. The person sees each connected assistant on a page of
// the site and disconnects it there.
//
// The protocol is github.com/ory/fosite's: this package adds the pages,
// the trust classes and the keeping of tokens in the site's own stores
// (store.OAuth: in memory, sqlstore, redisstore).
//
//	srv, err := oauth.New(&oauth.Options{
//		Issuer:       "https://shop.example",
//		Authenticate: sessions.Principal, // the app's own sign-in
//		Principal:    accounts.Principal, // an account by its ID
//		SignIn:       "/login",
//	})
//	site := affordances.NewSite(&affordances.SiteOptions{
//		Authenticate: srv.Authenticate(sessions.Principal),
//		OAuth:        srv.ResourceMetadata(),
//		MCP:          "/mcp",
//	})
//	mux.Handle("/mcp", srv.Protect(mcpbridge.Handler(site.Handler(app), nil)))
//	http.ListenAndServe(addr, srv.Handler(site.Handler(mux)))
package oauth
