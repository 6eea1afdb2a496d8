// Package mcpbridge serves any Affordances site as MCP tools, on the
// official MCP Go SDK, with the human gate intact. It is for people who
// run agents (`affordances mcp` serves it) and for publishers who mount
// an MCP endpoint on their own site.
//
// [NewServer] is a bridge to any site: its tools name the site by URL.
// [Handler] is the endpoint a publisher mounts on its own site (the demo
// at /mcp, advertised as "mcp" in its site index): the same tools, limited
// to that site, with the caller's bearer token passed through to the calls.
//
// The tools are site_index, fetch_affordances (both read-only) and
// execute_affordance. Text from the site travels as data in structured
// content, shown through [aal.Visible], and is never merged into
// instructions for the model.
//
// The same tools serve a site that publishes AAL and no Affordances graph
// (kind "aal" in their results), as any PHP or Rails site may: site_index
// lists its manifest's routes, fetch_affordances a page's affordances by
// id with the fields of their forms as input, and execute_affordance
// performs one in headless Chromium, as the person would (the gate and
// the person's approval first, the form filled from input, exactly the
// element clicked), and returns the page it led to with its affordances
// (next). The browser gets the cookies of [Options.HTTPClient]'s Jar, or
// runs the person's [Options.BrowserProfile], for configured sites only.
//
// The gate stays with the person. When the gate says Ask, or the site
// answers confirm_required, the bridge asks the person through MCP form
// elicitation with the message verbatim, and sends confirm: true only on
// their yes. A client that cannot elicit gets a tool error saying that a
// person must approve, and what; nothing that could run is sent. No tool
// argument can approve: grants come from the person's configuration
// ([Options]), never from the model.
//
// A site may want the person to approve on its own page instead
// (human-verified confirmation: its confirm_required carries an approval
// URL). Then no form is offered and no yes of the client's counts: the
// page decides. A client that supports URL-mode elicitation is asked to
// send the person to the page, with the site's summary shown through
// [aal.Visible]; their accept means "I went there", and the bridge waits
// ([Options.ApprovalTimeout]) for their decision on the page, then runs
// the call once if they approved. While it waits it sends progress
// notifications, when the call carries a progress token, so that a client
// that resets its timeout on progress does not give up on the person.
// Declined, cancelled or denied, nothing runs. A client without URL
// mode gets a tool result, not an error, with ok false, the delta and
// the page (approval: url, expires, what to do): the model asks the
// person to open it, and the same execute_affordance made again runs
// once they approved there, on a site the person configured. On any
// other site the page's word is the site's alone: the call runs only
// after the person accepted the URL elicitation that sent them there,
// and without one the result says that calling again changes nothing.
//
// The bridge keeps the person's keys. Their token, their grants and the
// cookies of their HTTP client go only to the sites they configured
// ([Options.Sites]). A URL of any other origin, such as one a page's text
// asked the model to visit, is fetched without any of them, and each
// tool's result says so in its credentials field.
package mcpbridge
