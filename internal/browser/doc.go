// Package browser drives headless Chromium from Go, through chromedp and
// the DevTools protocol, for what only a real browser can show: how the
// pages look (screenshots), what assistive technology reads
// (accessibility snapshots), and what happens when a person uses an AAL
// affordance (the element its selector finds, clicked; among several, the
// one whose data-aal-input the call's input picks; with [Page.Operate],
// its form's fields filled from the call's input first, one interaction at
// a time).
//
// [Page.Ready] does what Operate does before the click and checks the form
// as the browser would before sending it (a required field left empty is
// an error), leaving the click ([Ready.Click]) for after a person's
// approval: how the consumer operates a page that publishes AAL without an
// Affordances graph (package internal/aalbrowser).
//
// [Page.Tools] and [Page.ExecuteTool] list and run a page's WebMCP tools
// as an agent in the browser does, on whichever shape of the API the
// browser offers, found by looking for it (docs/webmcp.md).
//
// [Start] launches Debian's /usr/bin/chromium (or $CHROMIUM) headless, with
// a fresh user-data-dir; [Browser.Close] stops it and removes that
// directory. Each [Page] is a tab in a browser context of its own, so two
// pages are two people with their own cookies. With [Options.Profile],
// the person's own profile directory, pages share its cookies and Close
// leaves it in place. A page records every HTTP
// response Chromium receives ([Page.Responses]), so a test can say what
// the browser was sent, not only what it shows.
//
//	b, err := browser.Start(ctx, nil)
//	if errors.Is(err, browser.ErrNoChromium) {
//		t.Skip(err) // or fail, where Chromium must be there
//	}
//	defer b.Close()
//	p, _ := b.NewPage(ctx)
//	p.Navigate(ctx, shopURL+"/products/canvas-tote")
//	f, _ := p.Fragment(ctx) // the page's inline AAL fragment
//	for _, a := range f.Affordances {
//		if a.ID == "add-to-cart" {
//			p.Perform(ctx, a) // clicks [data-aal="add-to-cart"], waits for the next page
//		}
//	}
//	text, _ := p.Text(ctx, "main")
//	// On a page with a delete button on each row, the call's input picks
//	// the one whose data-aal-input is {"task":"t-17"}:
//	p.PerformInput(ctx, deleteTask, map[string]any{"task": "t-17"})
//
// Library code here never prints; chromedp's complaints go to
// [Options.Logger].
package browser
