package conformance

// CheckIDs returns the id of every check, in the order they run.
func CheckIDs() []string {
	ids := make([]string, len(checks))
	for i, c := range checks {
		ids[i] = c.id
	}
	return ids
}
