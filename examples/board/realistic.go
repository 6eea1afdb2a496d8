package main

// The realistic seed (-seed realistic) gives the boards the tasks a real
// team's boards have: the website relaunch 100 and the team offsite 20,
// the demo's among them. Their titles pair each verb of a board's work
// with each of its things, in a fixed order, so every seeding makes the
// same tasks; most are done, as on a board that has run for a while.

// realisticWork is what a board's realistic tasks are about, and how
// many it gets.
type realisticWork struct {
	verbs, things []string
	n             int
}

var relaunchWork = realisticWork{
	verbs: []string{"Write the copy for", "Review", "Design", "Test", "Fix the layout of", "Translate", "Check the links on", "Speed up",
		"Add analytics to", "Proofread"},
	things: []string{"the about page", "the careers page", "the pricing table", "the blog index", "the 404 page", "the contact form",
		"the newsletter sign-up", "the press page", "the footer", "the cookie banner", "the search results", "the team page",
		"the case studies", "the FAQ", "the checkout"},
	n: 93,
}

var offsiteWork = realisticWork{
	verbs:  []string{"Book", "Confirm", "Pay for", "Plan"},
	things: []string{"the minibus", "the Friday dinner", "the meeting room", "the bike hire", "the guided tour", "the packed lunches"},
	n:      15,
}

// realisticTasks returns w.n tasks for a board of members (indexes of
// seedUsers): a quarter to do, an eighth under way, the rest done, each
// with an assignee among the members or nobody, most with a due date.
func realisticTasks(members []int, w realisticWork) []seedTask {
	var out []seedTask
	for k := range w.n {
		t := seedTask{
			title:    w.verbs[k%len(w.verbs)] + " " + w.things[(k/len(w.verbs)+k)%len(w.things)],
			assignee: -1,
		}
		if m := k % (len(members) + 1); m < len(members) {
			t.assignee = members[m]
		}
		switch k % 8 {
		case 0, 1:
			t.status, t.dueInDays = "todo", k%45-4
		case 2:
			t.status, t.dueInDays = "doing", k%17-3
		default:
			t.status, t.dueInDays = "done", -(k%60)-1
		}
		if k%5 == 0 {
			t.dueInDays = 0 // no due date
		}
		out = append(out, t)
	}
	return out
}
