package store

import (
	"context"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/crownsdev/crowns/internal/backoff"
)

// listenRetry is the reconnection backoff of the change listener; it
// starts over after a connection that listened. Its cap is short so that
// changes are seen again soon after the database comes back.
var listenRetry = backoff.Policy{First: 100 * time.Millisecond, Max: time.Second}

// listenConnectTimeout bounds one connection attempt of the listener.
const listenConnectTimeout = 10 * time.Second

// ListenForClanChanges delivers to this store's subscribers the clan
// changes that other processes commit on the same PostgreSQL database and
// schema, until ctx ends. It holds a dedicated connection that LISTENs on
// the store's channel and reconnects with backoff when it breaks. After
// every (re)connection it announces a change of all clans, since
// notifications sent while it was not listening are lost. On SQLite there
// is no channel and it returns at once: writes of other processes (an
// operator's crowns clans command) are seen when cached answers expire.
func (c *Store) ListenForClanChanges(ctx context.Context) error {
	if c.changeChannel == "" {
		return nil
	}
	failures := 0
	for {
		listened, err := c.listenOnce(ctx)
		if ctx.Err() != nil {
			return nil
		}
		if listened {
			failures = 0
		}
		failures++
		wait := listenRetry.Delay(failures)
		c.log.Warn("clan change listener disconnected; reconnecting", "error", err, "retryIn", wait)
		select {
		case <-ctx.Done():
			return nil
		case <-time.After(wait):
		}
	}
}

// listenOnce connects, listens and delivers notifications until the
// connection fails or ctx ends; listened tells whether LISTEN succeeded.
func (c *Store) listenOnce(ctx context.Context) (listened bool, err error) {
	connectCtx, cancel := context.WithTimeout(ctx, listenConnectTimeout)
	conn, err := pgx.Connect(connectCtx, c.url)
	cancel()
	if err != nil {
		return false, err
	}
	defer func() {
		closeCtx, cancel := context.WithTimeout(context.WithoutCancel(ctx), time.Second)
		defer cancel()
		_ = conn.Close(closeCtx)
	}()
	if _, err := conn.Exec(ctx, "LISTEN "+pgx.Identifier{c.changeChannel}.Sanitize()); err != nil {
		return false, err
	}
	c.changes.announce(ClanChange{All: true})
	for {
		notification, err := conn.WaitForNotification(ctx)
		if err != nil {
			return true, err
		}
		origin, tag, ok := strings.Cut(notification.Payload, " ")
		switch {
		case !ok || tag == "":
			c.log.Warn("clan change listener: malformed notification ignored", "payload", notification.Payload)
		case origin != c.changes.origin:
			c.changes.announce(ClanChange{Tag: tag})
		}
	}
}
