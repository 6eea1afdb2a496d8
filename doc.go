// Package affordances implements the Affordances protocol v0 for Go web
// applications, and declares the wire types that the agents using them
// read with package agent.
//
// A page answers its own URL with HTML for people and, when asked with
// Accept: application/vnd.affordances+json, with a small JSON [Graph] for
// agents: what the page shows (entities), what can be done there (actions)
// and where to go next (nav). An agent calls an action by POSTing a [Call]
// to the same URL and gets back a [Delta]: only what changed.
//
// # Publishing
//
// Declare a [Site], its routes with the state loader the HTML page renders
// from, and typed actions; wrap the application's own handler:
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
// [Site.Handler] negotiates as CLARIFICATIONS 3 of the specification says,
// serves the site index at [IndexPath], and runs every call through the
// seven steps of protocol v0 in order: resolve the action, the origin rule
// and expose, the rate limit, the input schema, the guard, confirmation, and
// the action itself followed by a reload of the page's state. Input and
// output schemas are inferred from the Go types (or given as JSON) and
// compiled once at start-up; a bad declaration panics there, never on the
// request path. Route patterns are [http.ServeMux]'s ("/products/{slug}"),
// so one string routes the app's mux and the site; the wire writes them as
// seed 000 does, /products/[slug].
//
// # Forms for people
//
// People's HTML forms run the same declared actions through the same
// pipeline: a form posted to its page with the field [FormActionField]
// ({{actionField "addToCart"}}) runs that action, with the browser's origin
// rule, the same rate limit, its values decoded and validated by the
// action's input schema, the guard, and for a confirm action a
// confirmation page first. A success answers 303 to the delta's redirect
// or back to the page; a failure renders the page again with the error's
// status. The page's own GET handler renders both, reading [Page.Form]: the
// delta's message after a success, the error with each issue at its field
// and the person's values after a failure, the summary to confirm with
// [Form.ConfirmFields]. An action is written once; the app writes no POST
// handler for it.
//
// # Agents in the browser, and llms.txt
//
// [Page.Head] registers a page's available actions as WebMCP tools
// (CLARIFICATIONS 12) from the same listing as its graph: each tool runs
// the Affordances call from the page with the person's session, never
// confirms, and follows the deltas' availability; [Actions.Tool] and
// [Actions.ToolParam] put the same tools on forms for browsers without
// script. [Site.Handler] serves the site index in Markdown at
// [LLMsTxtPath].
//
// # Several instances
//
// Rate limits, Idempotency-Keys and approvals live in the stores of
// [SiteOptions] (RateLimiter, Idempotency, Approvals): in memory by
// default, in the application's own database with package sqlstore
// (SQLite or PostgreSQL; a restart forgets nothing, and instances sharing
// a PostgreSQL database share them), in Redis with package redisstore
// (every instance shares them, limits included). Package store defines
// what a store must do, for those who write one.
//
// # Consuming
//
// The agent side lives in package agent
// ([github.com/affordances/affordances-go/agent]): its Client reads and
// operates any Affordances site, and asks the aal gate and, when it must,
// a person before anything risky is sent. It is a package of its own so
// that a publisher reads this package and an agent author that one, as
// database/sql's users read one package and its drivers' authors another,
// with only the wire types declared here ([Graph], [Delta], [Call],
// [SiteIndex], [*Error]) in common; and so that the name Page here is left
// to the page that templates read. Every call it sends carries an
// Idempotency-Key, which [Site.Handler] honours
// ([SiteOptions.Idempotency]).
//
// # AAL
//
// The same declarations publish the Agent Affordance Layer 0.1.1 (package
// aal): the manifest at /.well-known/agent-affordances.json and, for every
// page, a fragment computed from the page's state with the same loader,
// one affordance per listed action, carrying what [Action.AAL] declares
// (action type, trust class, cost, whether it can be undone). In templates,
// {{aal "placeOrder"}} ([TemplateFuncs]) marks the element an affordance's
// default selector finds; [Page.Head] puts the fragment's link and inline
// copy in the page's head.
//
// # Security
//
// Only actions that declare [Expose] are reachable. A cookie call must carry
// the site's Origin; a bearer call is exempt. A
// [ExposeConfirm] action never runs without confirm: true, and answers
// confirm_required with its Summary for the person who approves; a
// human-verified one ([Action.Verify], CLARIFICATIONS 10) runs only after
// the person approved that very call on the site's approval page
// ([ApprovalsPath]) in their browser session, so a model that sends
// confirm: true on its own is refused. A person's confirmation, on the
// confirmation page or the approval page, covers the state its summary
// describes ([Action.Consent]): the call runs only while it holds, checked
// before the action and, with [Request.Consented], in its transaction. A call
// with an Idempotency-Key runs at most once for its principal, page and key,
// and a retry with the same body gets the first delta back
// ([SiteOptions.Idempotency]). Errors that are not an [*Error] reach the requester
// as [Internal], without their text.
package affordances
