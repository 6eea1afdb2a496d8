// Package affordances is for Go web developers: it makes an application's
// pages answer agents through the Affordances protocol v0, from the same
// URLs, sessions and actions people use.
//
// A page answers its URL with HTML for people and, when asked with Accept:
// application/vnd.affordances+json, with a small JSON [Graph] for agents:
// what the page shows (entities), what can be done there (actions) and
// where to go next (nav). An agent calls an action by POSTing a [Call] to
// the same URL and gets back a [Delta]: only what changed.
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
// One declaration serves every caller through the same seven steps of
// protocol v0: an agent's call, a person's HTML form posted with the field
// [FormActionField], the page's WebMCP tools ([Page.Head]) and its Agent
// Affordance Layer fragment (package aal, [Action.AAL]). The application's
// own handler renders its pages from [PageFrom]: the state, the actions,
// what became of a form. Rate limits, Idempotency-Keys and approvals live
// in the stores of [SiteOptions]: in memory by default, in the
// application's database with package sqlstore, in Redis with package
// redisstore.
//
// What is dangerous is refused by default: only actions that declare
// [Expose] are reachable; a cookie call must carry the site's Origin; an
// [ExposeConfirm] action runs only with confirm: true, and a human-verified
// one ([Action.Verify]) only after the person approved that very call, and
// the state it was shown ([Action.Consent]), in their browser; errors that
// are not an [*Error] reach the requester as [Internal], without their text.
//
// The other side of the wire has packages of its own, as database/sql's
// users read one package and its drivers' authors another: package agent
// for those who write agents (its Client reads and operates any
// Affordances site), package store for those who write a store. The wire
// types declared here ([Graph], [Delta], [Call], [SiteIndex], [*Error]) are
// what both sides share. docs/design.md in the repository explains the
// design; README.md walks through it.
package affordances
