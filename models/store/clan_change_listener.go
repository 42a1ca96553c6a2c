package store

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/crownsdev/crowns/internal/backoff"
	"github.com/crownsdev/crowns/internal/outage"
	"github.com/crownsdev/crowns/models"
)

// listenRetry is the reconnection backoff of the change listener (a
// Store's listenRetry, which tests may shorten); it starts over after a
// connection that listened. Its cap is short so that changes are seen
// again soon after the database comes back.
var listenRetry = backoff.Policy{First: 100 * time.Millisecond, Max: time.Second}

// listenConnectTimeout bounds one connection attempt of the listener.
const listenConnectTimeout = 10 * time.Second

// A listening connection that has brought nothing for listenQuietFor is
// pinged, and counts as broken unless the server answers within
// listenPingTimeout. A connection whose network path died without a reset
// (a failover, a firewall or NAT that forgot it) brings no error, only
// silence, until TCP's keepalive gives up (some 2.5 minutes with Go's
// defaults; never when a proxy in between answers it), and the
// notifications sent meanwhile are lost.
const (
	listenQuietFor    = 5 * time.Second
	listenPingTimeout = 2 * time.Second
)

// ListenForClanChanges delivers to this store's subscribers the clan
// changes that other processes commit on the same database, until ctx
// ends. On PostgreSQL it holds a dedicated connection that LISTENs on the
// store's channel and reconnects with backoff (at most a second) when it
// breaks, logging when it first fails, a reminder a minute while it
// cannot listen, and when it listens again (see package outage); after every (re)connection it announces a change of all clans,
// since notifications sent while it was not listening are lost. On SQLite
// it reads the clan_changes outbox every ClanChangePollInterval, so a
// change by another process (an operator's crowns clans command) is seen
// within about a second.
func (s *Store) ListenForClanChanges(ctx context.Context) error {
	if s.changeChannel == "" {
		ticker := time.NewTicker(ClanChangePollInterval)
		defer ticker.Stop()
		return s.followClanChanges(ctx, ticker.C)
	}
	disconnected := outage.New(outage.Config{
		Logger:    s.log,
		Now:       s.clock.Now,
		Failing:   "clan change listener disconnected; reconnecting",
		Recovered: "clan change listener listening again",
	})
	failures := 0
	for {
		listened, err := s.listenOnce(ctx, disconnected)
		if ctx.Err() != nil {
			return nil
		}
		if listened {
			failures = 0
		}
		failures++
		wait := s.listenRetry.Delay(failures)
		disconnected.Failed(ctx, err, "retryIn", wait)
		if !backoff.Wait(ctx, wait) {
			return nil
		}
	}
}

// listenOnce connects, listens and delivers notifications until the
// connection fails or ctx ends; listened tells whether LISTEN succeeded,
// which disconnected is told.
func (s *Store) listenOnce(ctx context.Context, disconnected *outage.Log) (listened bool, err error) {
	connectCtx, cancel := context.WithTimeout(ctx, listenConnectTimeout)
	conn, err := pgx.Connect(connectCtx, s.url)
	cancel()
	if err != nil {
		return false, err
	}
	defer func() {
		closeCtx, cancel := context.WithTimeout(context.WithoutCancel(ctx), time.Second)
		defer cancel()
		_ = conn.Close(closeCtx)
	}()
	if _, err := conn.Exec(ctx, "LISTEN "+pgx.Identifier{s.changeChannel}.Sanitize()); err != nil {
		return false, err
	}
	disconnected.Succeeded(ctx)
	s.changes.announce(models.ClanChange{All: true})
	for {
		notification, err := waitForNotification(ctx, conn)
		if err != nil {
			return true, err
		}
		if notification == nil {
			continue // quiet, but the server answered
		}
		origin, tag, ok := strings.Cut(notification.Payload, " ")
		switch {
		case !ok || tag == "":
			s.log.Warn("clan change listener: malformed notification ignored", "payload", notification.Payload)
		case origin != s.changes.origin:
			s.changes.announce(models.ClanChange{Tag: tag})
		}
	}
}

// waitForNotification returns conn's next notification, or nil when none
// came for listenQuietFor and the server answered a ping within
// listenPingTimeout; an error when the connection failed or did not
// answer.
func waitForNotification(ctx context.Context, conn *pgx.Conn) (*pgconn.Notification, error) {
	waitCtx, cancel := context.WithTimeout(ctx, listenQuietFor)
	notification, err := conn.WaitForNotification(waitCtx)
	quiet := errors.Is(waitCtx.Err(), context.DeadlineExceeded)
	cancel()
	if err == nil || ctx.Err() != nil || !quiet {
		return notification, err
	}
	pingCtx, cancel := context.WithTimeout(ctx, listenPingTimeout)
	defer cancel()
	if err := conn.Ping(pingCtx); err != nil {
		return nil, fmt.Errorf("quiet for %s, then no answer to a ping: %w", listenQuietFor, err)
	}
	return nil, nil
}
