package bot

import (
	"context"
	"errors"
	"net/http"
	"time"

	"github.com/bwmarrin/discordgo"
	"github.com/gorilla/websocket"

	"github.com/crownsdev/crowns/internal/backoff"
)

// Gateway close codes that no retry can fix.
const (
	closeAuthenticationFailed = 4004
	closeInvalidIntents       = 4013
	closeDisallowedIntents    = 4014
)

// checkToken asks Discord who the bot is, within RequestTimeout. It
// returns the instruction to log when Discord refuses the token, and ""
// otherwise (a Discord that cannot be reached or keeps rate-limiting the
// bot is left to the gateway's retries).
func (b *Bot) checkToken(ctx context.Context) string {
	ctx, cancel := b.requestContext(ctx)
	defer cancel()
	_, err := b.session.User("@me", discordgo.WithContext(ctx))
	if err == nil {
		return ""
	}
	return refusalOf(err)
}

// openGateway connects, retrying an unreachable gateway with the house
// backoff. It reports whether the bot is connected; false means ctx ended or
// Discord refused the bot (the instruction is logged).
func (b *Bot) openGateway(ctx context.Context) bool {
	retry := backoff.Policy{First: b.cfg.ReconnectDelay, Max: maxRetryDelay}
	for failures := 1; ctx.Err() == nil; failures++ {
		// The closing of a connection lost or an attempt failed before
		// this one is no news now. (Handlers run on goroutines of their
		// own: one may still arrive after this attempt connects; the next
		// attempt then finds the gateway open, and so connected.)
		select {
		case <-b.disconnected:
		default:
		}
		err := b.session.Open()
		if err == nil || errors.Is(err, discordgo.ErrWSAlreadyOpen) {
			b.log.Info("connected to the Discord gateway")
			return true
		}
		if refusal := refusalOf(err); refusal != "" {
			b.log.Error(refusal)
			return false
		}
		delay := retry.Delay(failures)
		b.log.Warn("cannot reach the Discord gateway; retrying", "error", err, "retryIn", delay)
		if !backoff.Wait(ctx, delay) {
			return false
		}
	}
	return false
}

// stableConnection is how long a gateway connection must have lasted for
// its loss to start the backoff over: connections lost one after another
// sooner are made again ever more slowly (Discord allows a bot a limited
// number of connections a day).
const stableConnection = time.Minute

// stayConnected connects the gateway again each time the connection is
// lost, until ctx ends, after the house backoff's wait for the losses in
// a row. When Discord refuses the bot meanwhile (the instruction is
// logged), it waits for ctx alone.
func (b *Bot) stayConnected(ctx context.Context) {
	retry := backoff.Policy{First: b.cfg.ReconnectDelay, Max: maxRetryDelay}
	connectedAt, losses := b.clock.Now(), 0
	for {
		select {
		case <-ctx.Done():
			return
		case <-b.disconnected:
		}
		if ctx.Err() != nil {
			return // the bot's own closing, at shutdown
		}
		if b.clock.Now().Sub(connectedAt) >= stableConnection {
			losses = 0
		}
		losses++
		delay := retry.Delay(losses)
		b.log.Warn("lost the Discord gateway; reconnecting", "retryIn", delay)
		if !backoff.Wait(ctx, delay) {
			return
		}
		if !b.openGateway(ctx) {
			<-ctx.Done()
			return
		}
		connectedAt = b.clock.Now()
	}
}

// noteDisconnect tells stayConnected that the gateway connection closed;
// it never blocks the session's event loop.
func (b *Bot) noteDisconnect() {
	select {
	case b.disconnected <- struct{}{}:
	default:
	}
}

// refusalOf returns the operator instruction for an error by which
// Discord refuses the bot's credentials or intents, or "" for any other
// error.
func refusalOf(err error) string {
	var closeErr *websocket.CloseError
	if errors.As(err, &closeErr) {
		switch closeErr.Code {
		case closeAuthenticationFailed:
			return textTokenRefused
		case closeDisallowedIntents, closeInvalidIntents:
			return textIntentsRefused
		}
	}
	var restErr *discordgo.RESTError
	if errors.As(err, &restErr) && restErr.Response != nil && restErr.Response.StatusCode == http.StatusUnauthorized {
		return textTokenRefused
	}
	if errors.Is(err, discordgo.ErrUnauthorized) {
		return textTokenRefused
	}
	return ""
}
