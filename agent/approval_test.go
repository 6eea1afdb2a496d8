package agent

import (
	"testing"

	"github.com/affordances/affordances-go/store"
)

// TestDefaultApprovalWait: a client waits on an approval whose expiry the
// site did not say as long as the library's own approvals live.
func TestDefaultApprovalWait(t *testing.T) {
	if defaultApprovalWait != store.ApprovalTTL {
		t.Errorf("defaultApprovalWait is %s, store.ApprovalTTL %s", defaultApprovalWait, store.ApprovalTTL)
	}
}
