package shop

import (
	"net/http"

	affordances "github.com/affordances/affordances-go"
)

// This file holds product reviews: the list on the product page, writing one, deleting your own.

// declareReviews declares the routes and actions of product reviews: the list on the product page, writing one, deleting your own.
func (s *Shop) declareReviews(product *affordances.Route) {}

// reviewPages registers the HTML pages and forms of product reviews: the list on the product page, writing one, deleting your own.
func (s *Shop) reviewPages(mux *http.ServeMux) {}

var _ *affordances.Route
