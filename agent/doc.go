// Package agent is for those who write agents: it reads and operates any
// Affordances site, whoever built it (the site index, a page's graph and
// AAL fragment), and sends nothing risky before a person approves it.
//
//	c, err := agent.New(http.DefaultClient, "https://shop.example", &agent.Options{
//		Token:    token,                     // or an http.Client with a cookie Jar
//		Approver: askThePerson,              // agent.ApproverFunc(func(ctx, *agent.ApprovalRequest) (bool, error))
//		Gate:     &aal.Gate{Grants: grants}, // a person's standing grants, per class and site
//	})
//	checkout, err := c.Page(ctx, "/checkout") // the graph and, when published, the AAL fragment
//	delta, err := checkout.Call(ctx, "placeOrder", nil)
//
// [Page.Call] asks the aal gate first and, when it must, the [Approver];
// it never sends confirm: true on its own, and for a human-verified action
// hands the person the site's approval page and waits for their decision
// there. Every call carries an
// Idempotency-Key, so a retry after a lost answer runs once on the
// server; a 429 is retried after its Retry-After. The delta is applied to
// the page, and with [Options.FollowRedirects] the page becomes the
// redirect.
//
// # Why a package of its own
//
// Package affordances is for those who publish a site; this one is for
// those who write agents. As database/sql's users read one package and
// its drivers' authors another (database/sql/driver), a publisher reads
// package affordances and an agent author reads this one, with only the
// wire types in common: [affordances.Graph], [affordances.Delta],
// [affordances.Call], [affordances.SiteIndex] and [*affordances.Error] are
// declared there and used here. It also leaves the name Page in package
// affordances to the page that templates read.
package agent
