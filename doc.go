// Package affordances makes a Go web application's pages answer agents
// through the Affordances protocol v0, from the same URLs, sessions and
// actions people use.
//
// A page answers its URL with HTML for people and, asked for [MediaType],
// with a JSON [Graph] for agents: what the page shows (entities), what can
// be done there (actions) and where to go next (nav). An agent POSTs a
// [Call] to the same URL and gets back a [Delta]: only what changed.
//
//	site := affordances.NewSite(&affordances.SiteOptions{
//		Name:         "Demo Shop",
//		Authenticate: sessions.Principal, // who is asking: cookie, bearer or nobody
//	})
//	product := site.Route("/products/{slug}", &affordances.RouteOptions{
//		Description: "One product: variants, price, stock",
//		State:       loadProduct, // entities and nav, for the graph and the HTML alike
//	})
//	affordances.AddAction(product, &affordances.Action{
//		Name: "addToCart", Description: "Add one variant to the cart",
//		Expose: affordances.ExposeSession, Effects: []string{"cart"},
//		Guard:  inStock, // (ok, reason for a person)
//	}, addToCart) // func(ctx, *affordances.Request, AddToCartInput) (AddToCartOutput, error)
//
//	http.ListenAndServe(addr, site.Handler(appMux))
//
// One declaration serves an agent's call, a person's form ([Page.Form]), the
// page's WebMCP tools ([Page.Head]) and its AAL fragment ([Action.AAL]); the
// app's handler renders its pages from [PageFrom]. Rate limits,
// Idempotency-Keys and approvals are kept in the stores of [SiteOptions].
//
// What is dangerous is refused by default: only actions that declare [Expose]
// are reachable; a cookie call must carry the site's Origin; an [ExposeConfirm]
// action runs only with confirm: true, a human-verified one ([Action.Verify])
// only once the person approved that call; errors that are not an [*Error]
// reach the requester as [Internal], without their text.
//
// Package agent is for those who write agents, package store for those who
// write a store. README.md walks through the package; docs/design.md explains
// its design.
package affordances
