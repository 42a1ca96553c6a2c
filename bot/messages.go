package bot

import (
	"context"
	"strings"

	"github.com/bwmarrin/discordgo"
)

// textCommand is a parsed text command.
type textCommand int

const (
	textCommandHelp textCommand = iota
	textCommandGet
	textCommandRegenerate
	textCommandRevoke
)

// parseTextCommand reads "<prefix> [get|regenerate|revoke]", word by word and
// case-insensitively (the prefix may have several words). ok is false for
// messages that are not for the bot, such as "!keys" or text that merely
// mentions the prefix.
func parseTextCommand(prefix, content string) (command textCommand, ok bool) {
	prefixWords := strings.Fields(prefix)
	words := strings.Fields(content)
	if len(words) < len(prefixWords) {
		return textCommandHelp, false
	}
	for i, word := range prefixWords {
		if !strings.EqualFold(words[i], word) {
			return textCommandHelp, false
		}
	}
	words = words[len(prefixWords):]
	if len(words) == 0 {
		return textCommandHelp, true
	}
	switch strings.ToLower(words[0]) {
	case subGet:
		return textCommandGet, true
	case subRegenerate:
		return textCommandRegenerate, true
	case subRevoke:
		return textCommandRevoke, true
	}
	return textCommandHelp, true
}

// HandleMessageCreate answers the text commands ("!key get", "!key
// regenerate", "!key revoke") in the developer-key channel; elsewhere in the community
// server it points to that channel. The answer never holds a key; in the
// key channel the command message is deleted afterwards to keep the
// channel clean.
func (b *Bot) HandleMessageCreate(ctx context.Context, event *discordgo.MessageCreate) {
	if event == nil || event.Message == nil {
		return
	}
	m := event.Message
	// A webhook's message has the webhook for author, with the webhook's
	// id and no bot flag: no member, whom a key could be for.
	if m.Author == nil || m.Author.Bot || m.WebhookID != "" || m.GuildID != b.cfg.GuildID {
		return
	}
	command, ok := parseTextCommand(b.cfg.Prefix, m.Content)
	if !ok {
		return
	}
	style := b.textStyle()
	if m.ChannelID != b.cfg.KeyChannelID {
		answerCtx, cancel := b.answerContext(ctx)
		defer cancel()
		a := answer{text: textUseKeyChannel(b.cfg.KeyChannelID, style)}
		b.metrics.command(textCommandName(command), b.outcomeOf(a, b.say(answerCtx, m, a)))
		return
	}
	who := requesterOf(m.Author, m.Member)
	var a answer
	switch command {
	case textCommandGet:
		a = b.getKey(ctx, who, style)
	case textCommandRegenerate:
		a = b.regenerateKey(ctx, who, style, false)
	case textCommandRevoke:
		a = b.revokeKey(ctx, who, style, false)
	default:
		a = answer{text: textCommandHelpText(style)}
	}
	// The answer and the clean-up have their own deadline, so they go
	// out even when the work above used up ctx.
	answerCtx, cancel := b.answerContext(ctx)
	defer cancel()
	delivered := b.say(answerCtx, m, a)
	b.answered(m.Author.ID, a, delivered)
	b.metrics.command(textCommandName(command), b.outcomeOf(a, delivered))
	b.deleteCommandMessage(answerCtx, m)
}

// deleteCommandMessage removes a text command from the key channel. A
// message its author deleted first is gone already; a refusal for want of
// a permission names the one the bot needs.
func (b *Bot) deleteCommandMessage(ctx context.Context, m *discordgo.Message) {
	err := b.session.ChannelMessageDelete(m.ChannelID, m.ID, discordgo.WithContext(ctx))
	switch {
	case err == nil, hasDiscordCode(err, codeUnknownMessage):
	case hasDiscordCode(err, codeMissingPermissions):
		b.logDiscordFailure(ctx, "delete a command message (the bot needs Manage Messages in the key channel)", err)
	default:
		b.logDiscordFailure(ctx, "delete a command message", err)
	}
}

// say answers a text command in its channel, addressed to its author
// and pinging no one else, within ctx (from answerContext). It tells
// whether Discord took the answer.
func (b *Bot) say(ctx context.Context, m *discordgo.Message, a answer) bool {
	_, err := b.session.ChannelMessageSendComplex(m.ChannelID, &discordgo.MessageSend{
		Content:         textAddressed(m.Author.ID, a.text),
		Embeds:          a.embeds,
		AllowedMentions: &discordgo.MessageAllowedMentions{Users: []string{m.Author.ID}},
	}, discordgo.WithContext(ctx))
	if err != nil {
		b.logDiscordFailure(ctx, "answer a text command", err)
	}
	return err == nil
}
