package store

import (
	"container/heap"
	"context"
	"crypto/rand"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"
)

// ApprovalTTL is how long a person has to decide on a call
// (docs/protocol.md decision 10), and how long a decision waits for the call.
const ApprovalTTL = 15 * time.Minute

// An ApprovalState is where an [Approval] stands.
type ApprovalState string

// The states of an [Approval]: pending until the person decides, then
// approved or denied for good.
const (
	ApprovalPending  ApprovalState = "pending"
	ApprovalApproved ApprovalState = "approved"
	ApprovalDenied   ApprovalState = "denied"
)

// An Approval is one confirm call waiting for, or given, a person's
// decision (docs/protocol.md decision 10: human-verified confirmation).
type Approval struct {
	// ID is unguessable and URL-safe: the <id> of
	// /.well-known/affordances/approvals/<id>. [NewApprovalID] makes one.
	ID string
	// Call names the call (a hash of principal, page, action and input):
	// the key an [Approvals] store holds the approval under.
	Call string
	// Principal is the ID of the caller's principal; only they may decide.
	Principal string
	// Page is the concrete page path the call went to.
	Page string
	// Action is the name of the action called.
	Action string
	// Input is the call's input as sent (canonical JSON), kept byte for
	// byte.
	Input json.RawMessage
	// Summary is the site's summary of the call, for the person.
	Summary string
	// Consent is the digest of the page's state the summary was written
	// from (the action's Consent), empty when it declares none: the
	// approval page offers the call for approval only while the state
	// still has it.
	Consent string
	// Cost is what the call charges as the person is shown it ("USD
	// 96.00"), computed when it was asked for, or empty.
	Cost string
	// State is where the approval stands.
	State ApprovalState
	// Expires is when the approval is forgotten. A store keeps it to the
	// millisecond.
	Expires time.Time
}

// An Approvals store keeps approvals. Implementations must be safe for
// concurrent use, by several instances of a site when they share it.
// Expired approvals are as if absent. Every *Approval a store returns is
// the caller's own copy.
//
// The life of one approval: [Approvals.Request] keeps it pending under its
// Call; the person decides once ([Approvals.Decide]), which keeps it for
// [ApprovalTTL] more for the call to come back; the call that comes back
// takes the decision ([Approvals.Take]), which removes it, so that one
// approval lets one call run, once.
type Approvals interface {
	// Request returns the live approval held for a.Call; when none is
	// held (or it expired) it keeps a copy of *a as given and returns it.
	// Atomic: of concurrent Requests for one Call, all return the same
	// approval (the same ID).
	Request(ctx context.Context, a *Approval) (*Approval, error)

	// Get returns the live approval with the given id, or nil, nil.
	Get(ctx context.Context, id string) (*Approval, error)

	// Decide records the person's decision on the pending live approval
	// id, keeps it for [ApprovalTTL] from now, and returns it. It returns
	// [ErrApprovalClosed] when there is no such approval, it expired, or
	// it was already decided (a decision is never changed). Of concurrent
	// Decides on one approval, at most one succeeds.
	Decide(ctx context.Context, id string, approve bool) (*Approval, error)

	// Take returns the live approval held for call, or nil, nil. An
	// approved or denied one is removed in the same atomic step, so a
	// decision is used at most once (of concurrent Takes exactly one sees
	// it); a pending one stays.
	Take(ctx context.Context, call string) (*Approval, error)
}

// ErrApprovalClosed is the error of [Approvals.Decide] on an approval that
// is decided, expired or unknown.
var ErrApprovalClosed = errors.New("store: the approval is decided, expired or unknown")

// NewApprovalID returns a fresh approval id: 128 random bits from
// crypto/rand, in 26 characters of lowercase base32 without padding, which
// are URL-safe.
func NewApprovalID() string {
	return strings.ToLower(rand.Text())
}

// NewMemoryApprovals returns an [Approvals] store held in memory, for a
// single instance. It keeps at most opts.Max live approvals (0: 10,000);
// past that, Request drops the approval closest to expiring, in
// logarithmic time, so memory stays bounded under a flood of calls (whoever
// held the dropped one finds it closed, and the call asks again). Expired
// approvals are swept as the store is used, each once.
func NewMemoryApprovals(opts *MemoryOptions) Approvals {
	return newMemoryApprovals(opts)
}

func newMemoryApprovals(opts *MemoryOptions) *memoryApprovals {
	o := opts.withDefaults(10_000)
	return &memoryApprovals{
		max:    o.Max,
		now:    o.Now,
		byCall: map[string]*heldApproval{},
		byID:   map[string]*heldApproval{},
	}
}

type memoryApprovals struct {
	mu     sync.Mutex
	max    int
	now    func() time.Time
	byCall map[string]*heldApproval
	byID   map[string]*heldApproval
	queue  approvalQueue // every held approval, the first to expire first
}

type heldApproval struct {
	a     Approval
	index int // in queue
}

// approvalQueue is a heap of held approvals ordered by expiry.
type approvalQueue []*heldApproval

func (q approvalQueue) Len() int           { return len(q) }
func (q approvalQueue) Less(i, j int) bool { return q[i].a.Expires.Before(q[j].a.Expires) }
func (q approvalQueue) Swap(i, j int) {
	q[i], q[j] = q[j], q[i]
	q[i].index, q[j].index = i, j
}
func (q *approvalQueue) Push(x any) {
	h := x.(*heldApproval)
	h.index = len(*q)
	*q = append(*q, h)
}
func (q *approvalQueue) Pop() any {
	old := *q
	h := old[len(old)-1]
	old[len(old)-1] = nil
	*q = old[:len(old)-1]
	return h
}

// copyApproval returns a copy of a that shares no memory with it.
func copyApproval(a *Approval) *Approval {
	c := *a
	if a.Input != nil {
		c.Input = append(json.RawMessage{}, a.Input...)
	}
	return &c
}

// sweep forgets the approvals expired at now; each is removed once, so the
// cost stays constant over time.
func (m *memoryApprovals) sweep(now time.Time) {
	for len(m.queue) > 0 && !now.Before(m.queue[0].a.Expires) {
		m.remove(m.queue[0])
	}
}

func (m *memoryApprovals) remove(h *heldApproval) {
	heap.Remove(&m.queue, h.index)
	delete(m.byCall, h.a.Call)
	delete(m.byID, h.a.ID)
}

func (m *memoryApprovals) Request(_ context.Context, a *Approval) (*Approval, error) {
	now := m.now()
	m.mu.Lock()
	defer m.mu.Unlock()
	m.sweep(now)
	if h := m.byCall[a.Call]; h != nil {
		return copyApproval(&h.a), nil
	}
	if !now.Before(a.Expires) {
		return copyApproval(a), nil // kept as given, and as if absent from now on
	}
	if m.byID[a.ID] != nil {
		return nil, fmt.Errorf("store: approvals: the id %q is held for another call", a.ID)
	}
	for len(m.queue) >= m.max {
		m.remove(m.queue[0])
	}
	h := &heldApproval{a: *copyApproval(a)}
	heap.Push(&m.queue, h)
	m.byCall[a.Call], m.byID[a.ID] = h, h
	return copyApproval(&h.a), nil
}

func (m *memoryApprovals) Get(_ context.Context, id string) (*Approval, error) {
	now := m.now()
	m.mu.Lock()
	defer m.mu.Unlock()
	m.sweep(now)
	if h := m.byID[id]; h != nil {
		return copyApproval(&h.a), nil
	}
	return nil, nil
}

func (m *memoryApprovals) Decide(_ context.Context, id string, approve bool) (*Approval, error) {
	now := m.now()
	m.mu.Lock()
	defer m.mu.Unlock()
	m.sweep(now)
	h := m.byID[id]
	if h == nil || h.a.State != ApprovalPending {
		return nil, ErrApprovalClosed
	}
	h.a.State = ApprovalDenied
	if approve {
		h.a.State = ApprovalApproved
	}
	h.a.Expires = now.Add(ApprovalTTL)
	heap.Fix(&m.queue, h.index)
	return copyApproval(&h.a), nil
}

func (m *memoryApprovals) Take(_ context.Context, call string) (*Approval, error) {
	now := m.now()
	m.mu.Lock()
	defer m.mu.Unlock()
	m.sweep(now)
	h := m.byCall[call]
	if h == nil {
		return nil, nil
	}
	if h.a.State != ApprovalPending {
		m.remove(h)
	}
	return copyApproval(&h.a), nil
}
