package bot

import (
	"fmt"
	"strings"
	"time"
	"unicode"

	"github.com/bwmarrin/discordgo"

	"github.com/crownsdev/crowns/keys"
	"github.com/crownsdev/crowns/models"
)

// Every word the bot says: answers to members and moderators, the direct
// message with a key, log-channel embeds, slash-command descriptions and
// the instructions it logs for the operator. Answers are short, friendly
// and say what to do next. None of them ever holds a key except
// textKeyMessage, which only goes to its owner by direct message.

// Instructions logged for the operator when Discord refuses the bot.
const (
	textTokenRefused = "Discord refused the bot token: copy a fresh token from " +
		"https://discord.com/developers/applications → your application → Bot → Reset Token, " +
		"put it in CROWNS_DISCORD_TOKEN and restart; the API keeps serving without the bot meanwhile"
	textIntentsRefused = "Discord refused the bot's privileged intents: enable the Server Members and Message Content intents " +
		"for the bot at https://discord.com/developers/applications → your application → Bot → Privileged Gateway Intents, " +
		"then restart; the API keeps serving without the bot meanwhile"
)

// textNotInGuild is logged when the bot is not a member of the configured
// community server.
func textNotInGuild(guildID, invite string) string {
	return fmt.Sprintf("the bot is not in the community server %s (CROWNS_DISCORD_GUILD_ID): invite it with %s "+
		"(or fix the server id) and restart", guildID, invite)
}

// textChannelHidden is logged when a configured channel does not exist or
// the bot may not see it.
func textChannelHidden(purpose, channelID, setting string) string {
	return fmt.Sprintf("the %s %s (%s) is not a channel the bot can see: fix the id, or give the bot "+
		"View Channel and Send Messages there, and restart", purpose, channelID, setting)
}

// textChannelElsewhere is logged when a configured channel belongs to
// another server than the community server.
func textChannelElsewhere(purpose, channelID, setting, itsGuildID, guildID string) string {
	return fmt.Sprintf("the %s %s (%s) is in the Discord server %s, not in the community server %s "+
		"(CROWNS_DISCORD_GUILD_ID): the bot acts only on commands and buttons of the community server; "+
		"use one of its channels and restart", purpose, channelID, setting, itsGuildID, guildID)
}

// textChannelOfWrongType is logged when a configured channel is not of a
// type the key desk is meant for (a category, a voice or forum channel).
func textChannelOfWrongType(purpose, channelID, setting, typeName string) string {
	return fmt.Sprintf("the %s %s (%s) is %s, not a text channel: members and moderators may not find or use it there; "+
		"use a text channel and restart", purpose, channelID, setting, typeName)
}

// Slash-command descriptions (at most 100 characters each).
const (
	describeKeyCommand      = "Your Crowns developer key"
	describeKeyGet          = "Get your developer key by direct message (the same key each time)"
	describeKeyRegenerate   = "Replace your developer key; every older key stops working at once"
	describeKeyRevoke       = "Withdraw your developer key (leaked?); it stops working at once"
	describeKeyAdmin        = "Moderate developer keys"
	describeBlacklist       = "Forbid a member any developer key; their current key stops working"
	describeBlacklistUser   = "The member to blacklist"
	describeBlacklistReason = "Why (shown to moderators and in the log channel)"
	describeUnblacklist     = "Let a blacklisted member ask for a key again"
	describeUnblacklistUser = "The member to unblacklist"
	describeInfo            = "Show a member's key state, creation, last use and usage (never the key)"
	describeInfoUser        = "The member to look up"
	describeKeyStats        = "Show your key's usage over the last 7 days"
	describeTop             = "List the keys with the most requests, and how often they were rate-limited"
	describeTopPeriod       = "The last day (default) or week"
	describeRevoke          = "Withdraw a member's current key; they may ask for a new one"
	describeRevokeUser      = "The member whose key to revoke"
	describeRevokeReason    = "Why (shown in the log channel)"
	describeClan            = "Manage tracked clans"
	describeClanWeekly      = "Switch weekly snapshots of a tracked clan on or off"
	describeClanTag         = "The clan tag, like #2CCCP"
	describeClanState       = "on or off"
)

// Answers to developers.
const (
	textBlacklistedDeveloper = "Sorry, you can't get a developer key: a moderator has blacklisted your account. " +
		"If you think this is a mistake, please talk to a moderator."
	textTryAgainSoon          = "The key desk can't reach its database right now. Please try again in a minute."
	textSomethingWentWrong    = "Something went wrong on our side. Please try again in a few minutes; if it keeps happening, tell a moderator."
	textOnlyInCommunityServer = "This bot only works in its community server."
	textUnknownCommand        = "I don't know that command. Try /key get."
	textModeratorsOnly        = "Only moderators (Administrator, Manage Server or Ban Members) can use this command."
	textModeratorsOnlyButton  = "Only moderators (Administrator, Manage Server or Ban Members) can use this button."
	textNotYourButton         = "This button isn't for you. Use /key regenerate or /key revoke for your own key."
	textConfirmButton         = "Replace my key"
	textConfirmRevokeButton   = "Revoke my key"
	textRevokeDefaultReason   = "revoked by a moderator"
	textWeeklyUnavailable     = "Weekly collection can't be switched from Discord in this deployment yet. " +
		"Use the crowns command line on the server instead."
)

// textKeyMessage is the direct message that carries a key to its owner:
// the only text that ever holds one.
func textKeyMessage(key string, kind delivery, style commandStyle) string {
	var intro string
	switch kind {
	case deliveryNew:
		intro = "Here is your Crowns developer key:"
	case deliveryReenabled:
		intro = "Welcome back! Your Crowns developer key works again:"
	case deliveryRegenerated:
		intro = "Here is your new Crowns developer key. Every older key stopped working just now:"
	default:
		intro = "Here is your Crowns developer key again:"
	}
	return intro + "\n```\n" + key + "\n```\n" +
		"Send it with every request in the `auth` header (or as `Authorization: Bearer <key>`). " +
		"Keep it secret: anyone who has it can use it as you. " +
		"Lost it? Use `" + style.get + "` in the developer-key channel and I'll send it again; " +
		"leaked it? Use `" + style.regenerate + "` there to replace it, or `" + style.revoke + "` to withdraw it."
}

// textKeySent answers a developer whose key went out by direct message.
func textKeySent(kind delivery) string {
	switch kind {
	case deliveryNew:
		return "Your developer key is on its way: check your direct messages."
	case deliveryReenabled:
		return "Welcome back! Your key works again, and I've sent it to your direct messages."
	case deliveryRegenerated:
		return "Done: your new key is in your direct messages. Every older key stopped working at once."
	default:
		return "I've sent your key to your direct messages again."
	}
}

// howToAllowDirectMessages says where Discord keeps the setting.
const howToAllowDirectMessages = "Allow direct messages from server members " +
	"(click the server name → Privacy Settings → turn on Direct Messages), then "

// textDirectMessagesClosed answers a developer who does not accept direct
// messages from server members.
func textDirectMessagesClosed(kind delivery, style commandStyle) string {
	if kind == deliveryRegenerated {
		return "Your new key is ready, but I couldn't send you a direct message. " + howToAllowDirectMessages +
			"use `" + style.get + "` to receive it. Every older key already stopped working."
	}
	return "I couldn't send you a direct message, and keys are only ever sent that way. " + howToAllowDirectMessages +
		"use `" + style.get + "` again."
}

// textDirectMessageFailed answers a developer whose direct message Discord
// did not take for another reason.
func textDirectMessageFailed(kind delivery, style commandStyle) string {
	if kind == deliveryRegenerated {
		return "Your new key is ready, but Discord didn't let me send it just now. " +
			"Please use `" + style.get + "` in a few minutes to receive it. Every older key already stopped working."
	}
	return "Discord didn't let me send you a direct message just now. Please try `" + style.get + "` again in a few minutes."
}

// textConfirmRegenerate asks a developer to confirm replacing their key.
func textConfirmRegenerate(style commandStyle) string {
	confirm := "Send `" + style.regenerate + "` again within 60 seconds to confirm."
	if style.slash {
		confirm = "Press **" + textConfirmButton + "** (or run `" + style.regenerate + "` again) within 60 seconds to confirm."
	}
	return "This replaces your developer key: every older key stops working at once, " +
		"so update every app that uses it. " + confirm
}

// textConfirmationExpired answers a late press of the confirm button.
func textConfirmationExpired(style commandStyle) string {
	return "That confirmation has expired, so your key is unchanged. Run `" + style.regenerate + "` again to start over."
}

// textConfirmationReplaced answers the button of a key change the member
// has since replaced by asking for the other one, other (subRegenerate or
// subRevoke), which is the one waiting.
func textConfirmationReplaced(style commandStyle, other string) string {
	command := style.regenerate
	if other == subRevoke {
		command = style.revoke
	}
	return "You have asked for `" + command + "` since, and that is the request waiting for your confirmation: this one is withdrawn, and your key is unchanged."
}

// textConfirmedBefore answers the button of a key change after the
// member's request of that window was confirmed (by the command or the
// button): done names it (subRegenerate or subRevoke).
func textConfirmedBefore(style commandStyle, done string) string {
	if done == subRevoke {
		return "Your key was already revoked when you confirmed `" + style.revoke + "`. Use `" + style.get + "` when you want a new one."
	}
	return "Your key was already replaced when you confirmed `" + style.regenerate + "`. Use `" + style.get + "` if you need the new one sent again."
}

// textConfirmRevoke asks a developer to confirm withdrawing their key.
func textConfirmRevoke(style commandStyle) string {
	confirm := "Send `" + style.revoke + "` again within 60 seconds to confirm."
	if style.slash {
		confirm = "Press **" + textConfirmRevokeButton + "** (or run `" + style.revoke + "` again) within 60 seconds to confirm."
	}
	return "This withdraws your developer key: it stops working at once, and `" + style.get +
		"` gives you a new one afterwards. " + confirm
}

// textRevokeConfirmationExpired answers a late press of the revoke button:
// this request revoked nothing (whether the key works is not for it to
// say: a moderator may have revoked it, or blacklisted its owner, since).
func textRevokeConfirmationExpired(style commandStyle) string {
	return "That confirmation has expired, so this request revoked nothing. Run `" + style.revoke + "` again to start over."
}

// textOwnKeyRevoked confirms that members withdrew their own key.
func textOwnKeyRevoked(style commandStyle) string {
	return "Done: your key is revoked and stopped working at once. Use `" + style.get + "` when you want a new one."
}

// textCoolDown asks a member to wait before using a command again.
func textCoolDown(wait time.Duration) string {
	return textWait(wait, "using this command again.")
}

// textKeyChangeCoolDown asks a member to wait before their next key
// command, the three sharing one cool-down.
func textKeyChangeCoolDown(wait time.Duration) string {
	return textWait(wait, "your next key command (get, regenerate and revoke share one cool-down).")
}

// textWait asks a member to wait, in whole seconds rounded up, before
// what follows.
func textWait(wait time.Duration, before string) string {
	seconds := int((wait + time.Second - 1) / time.Second)
	unit := "seconds"
	if seconds == 1 {
		unit = "second"
	}
	return fmt.Sprintf("Please wait %d %s before %s", seconds, unit, before)
}

// textLeakedKeyMessage is the direct message that tells developers their
// key was reported published, at url, and revoked.
func textLeakedKeyMessage(url string, style commandStyle) string {
	return "Your Crowns developer key was found published at " + orDash(url) +
		" and reported to us, so it was revoked: it stopped working at once. " +
		"Remove it from there, then use `" + style.get + "` in the developer-key channel for a new key, " +
		"and keep the new one out of public code."
}

// textNoKeyYet answers a regenerate request from a developer without a key.
func textNoKeyYet(style commandStyle) string {
	return "You don't have a developer key yet. Use `" + style.get + "` to get one."
}

// textNoKeyInUse tells a member without a current key that they have
// none, or none any longer (revoked: by themselves, a moderator or a leak
// report).
func textNoKeyInUse(info models.DeveloperInfo, style commandStyle) string {
	if info.LatestKeyID == 0 {
		return textNoKeyYet(style)
	}
	return "Your last developer key was revoked, and you have none in use. Use `" + style.get + "` when you want a new one."
}

// textUseKeyChannel points to the developer-key channel.
func textUseKeyChannel(channelID string, style commandStyle) string {
	return "Developer keys are handed out in <#" + channelID + ">. Use `" + style.get + "` there."
}

// textCommandHelpText lists the text commands.
func textCommandHelpText(style commandStyle) string {
	return "`" + style.get + "` sends your developer key by direct message (the same key each time). " +
		"`" + style.regenerate + "` replaces it; every older key stops working. " +
		"`" + style.revoke + "` withdraws it (asks to confirm). " +
		"The slash command /key does the same, and `/key stats` shows your key's usage (only to you)."
}

// textAddressed puts a channel answer to a text command in front of its
// author.
func textAddressed(userID, text string) string {
	return "<@" + userID + "> " + text
}

// Answers to moderators.

// textBlacklistDone confirms a blacklisting.
func textBlacklistDone(userID, reason string) string {
	return fmt.Sprintf("<@%s> is blacklisted (%s). Their key stopped working and they can't get a new one.", userID, reason)
}

// textAlreadyBlacklisted answers a blacklisting of a developer who was
// blacklisted already; first describes that blacklisting ("" when it
// could not be read).
func textAlreadyBlacklisted(userID, first string) string {
	if first == "" {
		return fmt.Sprintf("<@%s> was already blacklisted: nothing changed.", userID)
	}
	return fmt.Sprintf("<@%s> was already blacklisted (%s): nothing changed, and that reason stands.", userID, first)
}

// textUnblacklistDone confirms an unblacklisting.
func textUnblacklistDone(userID string) string {
	return fmt.Sprintf("<@%s> is no longer blacklisted and can ask for a new key. Their old key stays refused.", userID)
}

// textRevokeDone confirms a revocation.
func textRevokeDone(userID string) string {
	return fmt.Sprintf("<@%s>'s key is revoked and stopped working. They can ask for a new one.", userID)
}

// textBlacklistReasonMissing refuses a blacklisting whose reason is
// blank (Discord's required fields take spaces).
const textBlacklistReasonMissing = "a blacklisting needs a reason, which the log channel shows; nothing changed"

// textBlacklistedNoRevoke answers a moderator who revoked the key of a
// blacklisted member: it is refused already, and stays so.
func textBlacklistedNoRevoke(userID string) string {
	return fmt.Sprintf("<@%s> is blacklisted: their key is refused already, so nothing was revoked.", userID)
}

// textNoRecord answers a moderator command about someone without a record
// it could act on.
func textNoRecord(userID, command string) string {
	switch command {
	case subRevoke:
		return fmt.Sprintf("<@%s> has no current key to revoke.", userID)
	case subUnblacklist:
		return fmt.Sprintf("<@%s> isn't blacklisted.", userID)
	}
	return fmt.Sprintf("<@%s> has never asked for a developer key.", userID)
}

// textNotAccepted repeats why an input was refused.
func textNotAccepted(why string) string {
	return "That wasn't accepted: " + why + "."
}

// textInfoHeading introduces the info embed.
func textInfoHeading(userID string) string {
	return fmt.Sprintf("Developer key record of <@%s>:", userID)
}

// infoEmbed shows what may be known about a developer: never the key.
func infoEmbed(info keys.DeveloperInfo) *discordgo.MessageEmbed {
	state, colour := stateLook(info.State)
	fields := []*discordgo.MessageEmbedField{
		{Name: "State", Value: state, Inline: true},
		{Name: "Developer since", Value: discordTime(&info.CreatedAt, "D"), Inline: true},
		{Name: "Key created", Value: discordTime(info.KeyCreatedAt, "f"), Inline: true},
		{Name: "Last used", Value: discordTime(info.LastUsedAt, "R"), Inline: true},
	}
	if info.State == models.DeveloperBlacklisted || info.BlacklistReason != "" {
		fields = append(fields, &discordgo.MessageEmbedField{
			Name:  "Blacklisted",
			Value: fmt.Sprintf("%s, by %s, %s", orDash(info.BlacklistReason), actorWords(info.BlacklistedBy), discordTime(info.BlacklistedAt, "f")),
		})
	}
	return &discordgo.MessageEmbed{
		Title:  "Developer " + orDash(markdownEscaped(info.DisplayName)),
		Color:  colour,
		Fields: fields,
		Footer: &discordgo.MessageEmbedFooter{Text: "Discord user " + info.DiscordUserID},
	}
}

// stateLook words a developer's state and picks its embed colour.
func stateLook(state models.DeveloperState) (string, int) {
	switch state {
	case models.DeveloperActive:
		return "active", colourGood
	case models.DeveloperDisabled:
		return "disabled (left the server)", colourWarning
	case models.DeveloperBlacklisted:
		return "blacklisted", colourBad
	case models.DeveloperWithoutKey:
		return "no key", colourNeutral
	}
	return string(state), colourNeutral
}

// Answers about clans.

// textWeeklySwitched confirms /clan weekly.
func textWeeklySwitched(tag string, on bool) string {
	if on {
		return fmt.Sprintf("Weekly snapshots of clan #%s are on: a snapshot every Monday at 23:00 UTC.", tag)
	}
	return fmt.Sprintf("Weekly snapshots of clan #%s are off. Snapshots already taken are kept.", tag)
}

// textWeeklyUnchanged answers /clan weekly that asked for the current
// setting.
func textWeeklyUnchanged(tag string, on bool) string {
	if on {
		return fmt.Sprintf("Weekly snapshots of clan #%s were already on; nothing changed.", tag)
	}
	return fmt.Sprintf("Weekly snapshots of clan #%s were already off; nothing changed.", tag)
}

// textClanNotTracked answers /clan weekly for a clan that is not tracked.
func textClanNotTracked(tag string) string {
	return fmt.Sprintf("Clan #%s isn't tracked yet. Start tracking it (GET /clan/%s/track) and try again.", tag, tag)
}

// Log-channel embeds.

// Embed colours.
const (
	colourGood    = 0x2ecc71
	colourInfo    = 0x3498db
	colourWarning = 0xe67e22
	colourBad     = 0xe74c3c
	colourNeutral = 0x95a5a6
)

// auditEmbed describes one key event for the log channel: who, what, by
// whom, why and when, and the key's database id, never the key.
func auditEmbed(event models.KeyEvent) *discordgo.MessageEmbed {
	title, colour := auditTitle(event.Action)
	fields := []*discordgo.MessageEmbedField{
		{Name: "Developer", Value: fmt.Sprintf("<@%s> (%s)", event.DiscordUserID, event.DiscordUserID), Inline: true},
		{Name: "By", Value: actorWords(event.Actor), Inline: true},
	}
	if event.KeyID != nil {
		fields = append(fields, &discordgo.MessageEmbedField{Name: "Key record", Value: fmt.Sprintf("#%d", *event.KeyID), Inline: true})
	}
	if event.Reason != "" {
		fields = append(fields, &discordgo.MessageEmbedField{Name: "Reason", Value: event.Reason})
	}
	return &discordgo.MessageEmbed{
		Title:     title,
		Color:     colour,
		Fields:    fields,
		Footer:    &discordgo.MessageEmbedFooter{Text: fmt.Sprintf("key event %d", event.ID)},
		Timestamp: event.CreatedAt.UTC().Format(time.RFC3339),
	}
}

// auditTitle titles a key event and picks its embed colour.
func auditTitle(action models.KeyAction) (string, int) {
	switch action {
	case models.KeyActionIssued:
		return "Key issued", colourGood
	case models.KeyActionReenabled:
		return "Key re-enabled", colourGood
	case models.KeyActionRegenerated:
		return "Key regenerated", colourInfo
	case models.KeyActionDisabled:
		return "Key disabled", colourWarning
	case models.KeyActionRevoked:
		return "Key revoked", colourBad
	case models.KeyActionBlacklisted:
		return "Developer blacklisted", colourBad
	case models.KeyActionUnblacklisted:
		return "Developer unblacklisted", colourGood
	}
	return "Key event: " + string(action), colourNeutral
}

// actorWords names who caused a transition: a Discord user, the command
// line or the bot itself.
func actorWords(actor string) string {
	switch {
	case strings.HasPrefix(actor, "discord:"):
		return "<@" + strings.TrimPrefix(actor, "discord:") + ">"
	case actor == "cli":
		return "the crowns command line"
	case actor == actorBot:
		return "the key desk (automatic)"
	case actor == keys.ActorLeakReport:
		return "a leaked-key report (secret scanning)"
	}
	return orDash(actor)
}

// discordTime renders a time the way Discord localises for each reader
// (style "f" date and time, "D" date, "R" relative), or a dash / "never".
func discordTime(t *time.Time, style string) string {
	if t == nil || t.IsZero() {
		if style == "R" {
			return "never"
		}
		return "—"
	}
	return fmt.Sprintf("<t:%d:%s>", t.Unix(), style)
}

// markdownEscaped is text a member chose (a nickname), shown as typed:
// Discord would read its markdown (a nickname of "__x__" shows as an
// underlined x), so each markdown character is escaped.
func markdownEscaped(text string) string {
	return strings.NewReplacer(`\`, `\\`, "*", `\*`, "_", `\_`, "~", `\~`, "`", "\\`", "|", `\|`,
		">", `\>`, "#", `\#`, "[", `\[`, "]", `\]`, "(", `\(`, ")", `\)`).Replace(text)
}

// orDash is s, or a dash when s is blank.
func orDash(s string) string {
	if blank(s) {
		return "—"
	}
	return s
}

// blank tells whether s shows nothing in Discord: it holds only spaces,
// control characters and invisible format characters (a zero-width
// space or joiner), which strings.TrimSpace leaves.
func blank(s string) bool {
	for _, r := range s {
		if !unicode.IsSpace(r) && !unicode.IsControl(r) && !unicode.Is(unicode.Cf, r) {
			return false
		}
	}
	return true
}
