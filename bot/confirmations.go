package bot

import (
	"sync"
	"time"
)

// regenerateConfirmWindow is how long a request to regenerate waits for
// its confirmation.
const regenerateConfirmWindow = 60 * time.Second

// confirmations remembers who asked to regenerate their key, and when, so
// a second request or the button within the window confirms it. Time comes
// from the bot's clock.
type confirmations struct {
	mu     sync.Mutex
	window time.Duration
	asked  map[string]time.Time
}

func newConfirmations(window time.Duration) *confirmations {
	return &confirmations{window: window, asked: make(map[string]time.Time)}
}

// ask records that userID asked at now, forgetting expired requests.
func (c *confirmations) ask(userID string, now time.Time) {
	c.mu.Lock()
	defer c.mu.Unlock()
	for id, at := range c.asked {
		if !c.within(at, now) {
			delete(c.asked, id)
		}
	}
	c.asked[userID] = now
}

// take consumes userID's request and reports whether it was made within
// the window before now.
func (c *confirmations) take(userID string, now time.Time) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	at, ok := c.asked[userID]
	delete(c.asked, userID)
	return ok && c.within(at, now)
}

func (c *confirmations) within(at, now time.Time) bool {
	return !now.Before(at) && now.Sub(at) <= c.window
}

// forget drops userID's request, if any.
func (c *confirmations) forget(userID string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	delete(c.asked, userID)
}
