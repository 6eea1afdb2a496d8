package affordancestest_test

import (
	"fmt"

	"github.com/affordances/affordances-go/affordancestest"
	"github.com/affordances/affordances-go/schemas"
)

func ExampleValidate() {
	body := []byte(`{"v": "0", "page": "/cart", "route": "/cart", "entities": {},
		"actions": [{"name": "checkout", "description": "Go to checkout", "input": {}, "expose": "admin"}]}`)
	fmt.Println(affordancestest.Validate(schemas.Graph, body))
	// Output:
	// not a valid graph.json:
	//   /actions/0/available: is required
	//   /actions/0/expose: value must be one of 'public', 'session', 'confirm' (got "admin")
}
