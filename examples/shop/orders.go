package shop

import (
	"net/http"

	affordances "github.com/affordances/affordances-go"
)

// This file holds order history and cancelling an order within 30 minutes.

// declareOrders declares the routes and actions of order history and cancelling an order within 30 minutes.
func (s *Shop) declareOrders(order *affordances.Route) {}

// orderPages registers the HTML pages and forms of order history and cancelling an order within 30 minutes.
func (s *Shop) orderPages(mux *http.ServeMux) {}

var _ *affordances.Route
