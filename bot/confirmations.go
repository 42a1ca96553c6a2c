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

// pendingKeyChange is a member's request waiting for its confirmation.
type pendingKeyChange struct {
	action string
	at     time.Time
}

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

// take consumes userID's request for action if it was made within the
// window before now, and reports whether it did. Otherwise other names the
// change the member asked for instead and still has pending ("" for
// none), which is kept.
func (p *pendingKeyChanges) take(userID, action string, now time.Time) (confirmed bool, other string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	pending, ok := p.asked[userID]
	switch {
	case !ok:
		return false, ""
	case !p.within(pending.at, now):
		delete(p.asked, userID)
		return false, ""
	case pending.action != action:
		return false, pending.action
	}
	delete(p.asked, userID)
	return true, ""
}

func (p *pendingKeyChanges) within(at, now time.Time) bool {
	return !now.Before(at) && now.Sub(at) <= p.window
}
