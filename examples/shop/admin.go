package shop

import (
	"net/http"

	affordances "github.com/affordances/affordances-go"
)

// This file holds the admin pages: prices, stock, users.

// declareAdmin declares the routes and actions of the admin pages: prices, stock, users.
func (s *Shop) declareAdmin() {}

// adminPages registers the HTML pages and forms of the admin pages: prices, stock, users.
func (s *Shop) adminPages(mux *http.ServeMux) {}

var _ *affordances.Route
