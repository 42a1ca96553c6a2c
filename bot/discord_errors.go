package bot

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/url"

	"github.com/bwmarrin/discordgo"
)

// Discord JSON error codes the bot reacts to.
const (
	// codeCannotMessageUser: the member does not accept direct messages
	// from server members.
	codeCannotMessageUser = 50007
	// codeMissingPermissions: the bot lacks a permission for the request.
	codeMissingPermissions = 50013
	// codeUnknownMessage: the message is gone (its author deleted it).
	codeUnknownMessage = 10008
	// codeAlreadyAcknowledged: the interaction has had its initial
	// response.
	codeAlreadyAcknowledged = 40060
	// codeEmptyMessage: a message with no content, embed or file.
	codeEmptyMessage = 50006
	// codeInvalidFormBody: a field of the body past Discord's limits or
	// not taken.
	codeInvalidFormBody = 50035
)

// isDMClosed reports whether Discord refused a direct message because the
// member does not accept them.
func isDMClosed(err error) bool {
	return hasDiscordCode(err, codeCannotMessageUser)
}

// hasDiscordCode reports whether Discord refused a request with the JSON
// error code.
func hasDiscordCode(err error, code int) bool {
	var restErr *discordgo.RESTError
	return errors.As(err, &restErr) && restErr.Message != nil && restErr.Message.Code == code
}

// isLastingRefusal tells a Discord request refused for what it asks
// (a 4xx other than 429: a missing permission, an unknown user or
// channel), which asking again will not change, from a passing failure
// (a 5xx, a rate limit, the network, a timeout).
func isLastingRefusal(err error) bool {
	var restErr *discordgo.RESTError
	if !errors.As(err, &restErr) || restErr.Response == nil {
		return false
	}
	status := restErr.Response.StatusCode
	return status >= 400 && status < 500 && status != http.StatusTooManyRequests
}

// isRefusedMessage tells a post Discord refused for its body (400 with
// code 50035, Invalid Form Body: a text past a limit, a field it does not
// take; or 50006, an empty message): posted again, it is refused again, so
// a queue of posts passes it over rather than wait behind it. Any other
// refusal, a 400 of the channel among them (50008: a voice channel or a
// category, which takes no message), is the operator's to mend, and the
// queue waits for it: passed over, every post would be lost.
func isRefusedMessage(err error) bool {
	return hasDiscordCode(err, codeInvalidFormBody) || hasDiscordCode(err, codeEmptyMessage)
}

// describeDiscordError words a failed Discord request for the log: status,
// JSON code and Discord's message, or the transport failure without its
// URL (interaction URLs carry the interaction's token). Request bodies,
// which may hold a key, are never part of it.
func describeDiscordError(err error) string {
	var restErr *discordgo.RESTError
	if errors.As(err, &restErr) && restErr.Response != nil {
		if restErr.Message != nil {
			return fmt.Sprintf("HTTP %d, code %d: %s", restErr.Response.StatusCode, restErr.Message.Code, restErr.Message.Message)
		}
		return fmt.Sprintf("HTTP %d", restErr.Response.StatusCode)
	}
	var urlErr *url.Error
	if errors.As(err, &urlErr) {
		return urlErr.Op + ": " + urlErr.Err.Error()
	}
	return err.Error()
}

// logDiscordFailure logs a Discord request that failed while doing what.
func (b *Bot) logDiscordFailure(ctx context.Context, what string, err error) {
	b.log.WarnContext(ctx, "discord request failed", "doing", what, "discord", describeDiscordError(err))
}
