package bot

import (
	"sync"
	"time"
)

// regenerateConfirmWindow is how long a request to regenerate or revoke
// a key waits for its confirmation.
const regenerateConfirmWindow = 60 * time.Second

// pendingKeyChanges remembers, for each member, the one key change
// (subRegenerate or subRevoke) they asked for and when, so that the same
// command again or its button within the window confirms it. A member has
// at most one pending: asking for the other replaces it, so two changes
// can never both be confirmed. Time comes from the bot's clock.
type pendingKeyChanges struct {
	mu     sync.Mutex
	window time.Duration
	asked  map[string]pendingKeyChange
}

// pendingKeyChange is a member's request waiting for its confirmation,
// or confirmed already (kept for the rest of its window, so that its
// button, pressed late, can say so).
type pendingKeyChange struct {
	action    string
	at        time.Time
	confirmed bool
}

// pendingOutcome is what a confirmation found.
type pendingOutcome int

const (
	// noChangePending: nothing was asked within the window.
	noChangePending pendingOutcome = iota
	// changeConfirmed: the request is confirmed now.
	changeConfirmed
	// changeConfirmedBefore: the member's request within the window was
	// confirmed already.
	changeConfirmedBefore
	// otherChangePending: the member asked for the other change since.
	otherChangePending
)

func newPendingKeyChanges(window time.Duration) *pendingKeyChanges {
	return &pendingKeyChanges{window: window, asked: make(map[string]pendingKeyChange)}
}

// ask records that userID asked for action at now, in place of any other
// request of theirs, forgetting expired requests.
func (p *pendingKeyChanges) ask(userID, action string, now time.Time) {
	p.mu.Lock()
	defer p.mu.Unlock()
	for id, pending := range p.asked {
		if !p.within(pending.at, now) {
			delete(p.asked, id)
		}
	}
	p.asked[userID] = pendingKeyChange{action: action, at: now}
}

// take confirms userID's request for action if it was made within the
// window before now and is not confirmed yet (changeConfirmed); a request
// is confirmed once. Otherwise it says what it found: the request of the
// window confirmed before, or the other change pending, whose action it
// returns; or nothing.
func (p *pendingKeyChanges) take(userID, action string, now time.Time) (outcome pendingOutcome, found string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	pending, ok := p.asked[userID]
	switch {
	case !ok:
		return noChangePending, ""
	case !p.within(pending.at, now):
		delete(p.asked, userID)
		return noChangePending, ""
	case pending.confirmed:
		return changeConfirmedBefore, pending.action
	case pending.action != action:
		return otherChangePending, pending.action
	}
	pending.confirmed = true
	p.asked[userID] = pending
	return changeConfirmed, ""
}

// withdraw forgets userID's request for action while it waits for its
// confirmation (the member never saw the question).
func (p *pendingKeyChanges) withdraw(userID, action string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if pending, ok := p.asked[userID]; ok && pending.action == action && !pending.confirmed {
		delete(p.asked, userID)
	}
}

// drop forgets userID's request for action, confirmed but not carried
// out (the change failed): its button, pressed later, must not say it
// was done.
func (p *pendingKeyChanges) drop(userID, action string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if pending, ok := p.asked[userID]; ok && pending.action == action && pending.confirmed {
		delete(p.asked, userID)
	}
}

func (p *pendingKeyChanges) within(at, now time.Time) bool {
	return !now.Before(at) && now.Sub(at) <= p.window
}
