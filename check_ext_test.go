package affordances_test

import (
	"encoding/json"

	"github.com/affordances/affordances-go/affordancestest"
)

// Every graph, delta and index a test reads is checked against schemas/.
var (
	checkGraph = affordancestest.CheckGraph
	checkDelta = affordancestest.CheckDelta
	checkIndex = affordancestest.CheckIndex
)

func jsonUnmarshal(b []byte, v any) error { return json.Unmarshal(b, v) }
