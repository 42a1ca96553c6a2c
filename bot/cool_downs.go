package bot

import (
	"sync"
	"time"
)

// coolDowns remembers when each member last used each group of developer
// commands, so a member uses the commands of a group at most once per
// period between them (on the bot's clock). A zero or negative period
// lets every use through.
type coolDowns struct {
	mu     sync.Mutex
	period time.Duration
	used   map[coolDownKey]time.Time
	// keyOwed holds the members whose last key command ended with a key
	// the bot could not send them (direct messages closed or refused):
	// their next /key get, which sends it again, need not wait for the
	// cool-down. It is the one exception: that get, whatever becomes of
	// it, owes nothing more, so a member gets at most one use more per
	// period.
	keyOwed map[string]bool
}

// Groups of commands that share a cool-down.
const (
	// keyChanges are /key get, regenerate and revoke (and their text
	// forms), each of which may post to the log channel: one cool-down
	// for the three, so that cycling through them floods it no more than
	// repeating one.
	keyChanges = "key changes"
	// statsRequests are /key stats, which read the database.
	statsRequests = "stats"
)

// coolDownKey is one member's use of one group of commands.
type coolDownKey struct {
	group, userID string
}

func newCoolDowns(period time.Duration) *coolDowns {
	return &coolDowns{period: period, used: make(map[coolDownKey]time.Time), keyOwed: make(map[string]bool)}
}

// take records a use of group by userID at now and returns 0, or, when
// the previous use is less than a period ago, records nothing and returns
// how long the member still has to wait. Expired uses are forgotten.
func (c *coolDowns) take(group, userID string, now time.Time) time.Duration {
	if c.period <= 0 {
		return 0
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	key := coolDownKey{group: group, userID: userID}
	if last, ok := c.used[key]; ok && !now.Before(last) && now.Sub(last) < c.period {
		return c.period - now.Sub(last)
	}
	for k, at := range c.used {
		if now.Sub(at) >= c.period {
			delete(c.used, k)
			if k.group == keyChanges {
				delete(c.keyOwed, k.userID)
			}
		}
	}
	c.used[key] = now
	return 0
}

// giveBack forgets userID's use of group recorded at at (by take), as if
// it had not been made: a request that found nothing to answer does not
// hold the member back.
func (c *coolDowns) giveBack(group, userID string, at time.Time) {
	c.mu.Lock()
	defer c.mu.Unlock()
	key := coolDownKey{group: group, userID: userID}
	if used, ok := c.used[key]; ok && used.Equal(at) {
		delete(c.used, key)
	}
}

// oweKey records whether the key userID's last key command handed out
// is still owed to them: it could not be sent (owed), or it was.
func (c *coolDowns) oweKey(userID string, owed bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if owed && c.period > 0 {
		c.keyOwed[userID] = true
	} else {
		delete(c.keyOwed, userID)
	}
}

// takeOwedKey reports whether userID was owed a key the bot could not
// send them, and settles the debt: the get it lets through is the one.
func (c *coolDowns) takeOwedKey(userID string) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	owed := c.keyOwed[userID]
	delete(c.keyOwed, userID)
	return owed
}
