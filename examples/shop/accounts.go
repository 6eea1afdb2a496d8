package shop

import (
	"net/http"

	affordances "github.com/affordances/affordances-go"
)

// This file holds sign-up, the profile with its shipping addresses, and bearer tokens for agents.

// declareAccounts declares the routes and actions of sign-up, the profile with its shipping addresses, and bearer tokens for agents.
func (s *Shop) declareAccounts(login *affordances.Route) {}

// accountPages registers the HTML pages and forms of sign-up, the profile with its shipping addresses, and bearer tokens for agents.
func (s *Shop) accountPages(mux *http.ServeMux) {}

var _ *affordances.Route
