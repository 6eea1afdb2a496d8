package collection_test

import (
	"encoding/json"
	"fmt"
	"net/url"

	"github.com/affordances/affordances-go/collection"
)

// A state loader pages its tasks by the request's ?page=: the page's
// items, the page itself as an entity, and its nav.
func Example() {
	tasks := make([]string, 120)
	for i := range tasks {
		tasks[i] = fmt.Sprint("task ", i+1)
	}
	u, _ := url.Parse("/boards/home?page=2") // r.HTTP.URL in a state loader
	p, err := collection.Paginate(u, len(tasks), 50, "tasks")
	if err != nil {
		return // a not_found: the state loader returns it
	}
	items := collection.Items(tasks, p)
	page, _ := json.Marshal(p)
	fmt.Println(items[0], "to", items[len(items)-1])
	fmt.Println(string(page))
	for _, n := range p.Nav() {
		fmt.Println(n.To, n.Label)
	}
	// Output:
	// task 51 to task 100
	// {"page":2,"pages":3,"total":120,"size":50}
	// /boards/home?page=3 Next 20 of 120 tasks
	// /boards/home Previous 50 of 120 tasks
}
