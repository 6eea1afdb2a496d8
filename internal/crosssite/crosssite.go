// Package crosssite serves the people who arrive at a site's page from
// another site: an assistant's window sends them to an approval or a
// consent page by a link, and a browser keeps a SameSite=Strict session
// cookie back from such a navigation, so the page would take a person who
// is signed in for someone who is not.
package crosssite

import (
	"html/template"
	"net/http"
)

// Arrived reports whether r is a navigation from another site, which a
// SameSite=Strict cookie does not come with (Sec-Fetch-Site: cross-site).
func Arrived(r *http.Request) bool {
	return (r.Method == http.MethodGet || r.Method == http.MethodHead) && r.Header.Get("Sec-Fetch-Site") == "cross-site"
}

// Reload answers r with a page that loads r's URL again from this site,
// at once: that navigation is the site's own, and brings the cookies. It
// takes no decision: a page reached this way shows what it shows a person
// who came from the site itself.
func Reload(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.Header().Set("Cache-Control", "no-store")
	w.Header().Set("Content-Security-Policy", "default-src 'none'; frame-ancestors 'none'")
	w.Header().Set("Referrer-Policy", "no-referrer")
	reload.Execute(w, r.URL.RequestURI())
}

var reload = template.Must(template.New("reload").Parse(`<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta http-equiv="refresh" content="0;url={{.}}"><title>Continue</title></head>
<body><p><a href="{{.}}">Continue</a></p></body></html>
`))
