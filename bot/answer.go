package bot

import (
	"context"
	"time"

	"github.com/bwmarrin/discordgo"
)

// answer is what the bot says back to one command, whichever way the
// command came in.
type answer struct {
	text   string
	embeds []*discordgo.MessageEmbed
	// confirmAction, when set, is the key change (subRegenerate or
	// subRevoke) the answer asks its member to confirm; confirmFor, when
	// set, adds the button by which that user confirms it (slash commands
	// only).
	confirmAction, confirmFor string
	// coolDownTaken, when set, is when the question took a use of the
	// member's key-command cool-down: given back if Discord does not take
	// the question (see Bot.answered).
	coolDownTaken time.Time
}

// commandStyle is how a member invokes the developer commands, so answers
// can name the right one.
type commandStyle struct {
	get, regenerate, revoke string
	// slash is true for slash commands, whose answers can carry buttons.
	slash bool
}

// slashStyle names the slash commands.
func slashStyle() commandStyle {
	return commandStyle{get: "/" + commandKey + " " + subGet, regenerate: "/" + commandKey + " " + subRegenerate,
		revoke: "/" + commandKey + " " + subRevoke, slash: true}
}

// textStyle names the text commands with the configured prefix.
func (b *Bot) textStyle() commandStyle {
	return commandStyle{get: b.cfg.Prefix + " " + subGet, regenerate: b.cfg.Prefix + " " + subRegenerate,
		revoke: b.cfg.Prefix + " " + subRevoke}
}

// requester is the member a developer command is for.
type requester struct {
	userID      string
	displayName string
}

// requesterOf names the member behind a command: their server nickname,
// else their global display name, else their user name.
func requesterOf(user *discordgo.User, member *discordgo.Member) requester {
	name := user.Username
	if user.GlobalName != "" {
		name = user.GlobalName
	}
	if member != nil && member.Nick != "" {
		name = member.Nick
	}
	return requester{userID: user.ID, displayName: name}
}

// answerContext bounds the answer to a command by AnswerTimeout, counted
// from now. It keeps ctx's values but not its deadline or cancellation:
// when the command's work used up the handler's budget (a direct message
// Discord kept rate-limiting, say), the member still gets an answer.
func (b *Bot) answerContext(ctx context.Context) (context.Context, context.CancelFunc) {
	return context.WithTimeout(context.WithoutCancel(ctx), b.cfg.AnswerTimeout)
}
