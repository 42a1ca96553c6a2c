package bot

import (
	"sync"
	"time"
)

// coolDowns remembers when each member last used each developer command,
// so a member uses one command at most once per period (on the bot's
// clock). A zero or negative period lets every use through.
type coolDowns struct {
	mu     sync.Mutex
	period time.Duration
	used   map[coolDownKey]time.Time
}

// coolDownKey is one member's use of one command.
type coolDownKey struct {
	command, userID string
}

func newCoolDowns(period time.Duration) *coolDowns {
	return &coolDowns{period: period, used: make(map[coolDownKey]time.Time)}
}

// take records a use of command by userID at now and returns 0, or, when
// the previous use is less than a period ago, records nothing and returns
// how long the member still has to wait. Expired uses are forgotten.
func (c *coolDowns) take(command, userID string, now time.Time) time.Duration {
	if c.period <= 0 {
		return 0
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	key := coolDownKey{command: command, userID: userID}
	if last, ok := c.used[key]; ok && !now.Before(last) && now.Sub(last) < c.period {
		return c.period - now.Sub(last)
	}
	for k, at := range c.used {
		if now.Sub(at) >= c.period {
			delete(c.used, k)
		}
	}
	c.used[key] = now
	return 0
}
