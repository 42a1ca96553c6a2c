package bot

import (
	"context"
	"fmt"

	"github.com/bwmarrin/discordgo"
)

// Names of the slash commands, their subcommands and options.
const (
	commandKey           = "key"
	commandKeyAdmin      = "keyadmin"
	commandClan          = "clan"
	subGet               = "get"
	subRegenerate        = "regenerate"
	subBlacklist         = "blacklist"
	subUnblacklist       = "unblacklist"
	subInfo              = "info"
	subRevoke            = "revoke"
	subWeekly            = "weekly"
	optionUser           = "user"
	optionReason         = "reason"
	optionTag            = "tag"
	optionState          = "state"
	stateOn              = "on"
	stateOff             = "off"
	maxReasonLength      = 200
	confirmButtonPrefix  = "crowns:"
	moderatorPermissions = discordgo.PermissionAdministrator | discordgo.PermissionManageGuild | discordgo.PermissionBanMembers
)

// botPermissions are what the bot needs in its channels: View Channels,
// Send Messages, Manage Messages (to delete command messages), Embed
// Links and Read Message History.
const botPermissions = discordgo.PermissionViewChannel | discordgo.PermissionSendMessages |
	discordgo.PermissionManageMessages | discordgo.PermissionEmbedLinks | discordgo.PermissionReadMessageHistory

// commandDefinitions are the slash commands registered in the community
// server. Discord shows /keyadmin and /clan by default to members with Ban
// Members (and to administrators); Discord's default permissions require
// every bit of the set, so they cannot say "any of Administrator, Manage
// Server, Ban Members". Server admins can widen that under Server Settings
// → Integrations, and the handler checks the three permissions itself.
func commandDefinitions() []*discordgo.ApplicationCommand {
	moderators := int64(discordgo.PermissionBanMembers)
	noDMs := false
	user := func(description string) *discordgo.ApplicationCommandOption {
		return &discordgo.ApplicationCommandOption{Type: discordgo.ApplicationCommandOptionUser, Name: optionUser, Description: description, Required: true}
	}
	subcommand := func(name, description string, options ...*discordgo.ApplicationCommandOption) *discordgo.ApplicationCommandOption {
		return &discordgo.ApplicationCommandOption{Type: discordgo.ApplicationCommandOptionSubCommand, Name: name, Description: description, Options: options}
	}
	return []*discordgo.ApplicationCommand{
		{
			Name: commandKey, Description: describeKeyCommand, DMPermission: &noDMs,
			Options: []*discordgo.ApplicationCommandOption{
				subcommand(subGet, describeKeyGet),
				subcommand(subRegenerate, describeKeyRegenerate),
				subcommand(subStats, describeKeyStats),
				subcommand(subRevoke, describeKeyRevoke),
			},
		},
		{
			Name: commandKeyAdmin, Description: describeKeyAdmin, DMPermission: &noDMs, DefaultMemberPermissions: &moderators,
			Options: []*discordgo.ApplicationCommandOption{
				subcommand(subBlacklist, describeBlacklist, user(describeBlacklistUser), &discordgo.ApplicationCommandOption{
					Type: discordgo.ApplicationCommandOptionString, Name: optionReason, Description: describeBlacklistReason,
					Required: true, MaxLength: maxReasonLength,
				}),
				subcommand(subUnblacklist, describeUnblacklist, user(describeUnblacklistUser)),
				subcommand(subInfo, describeInfo, user(describeInfoUser)),
				subcommand(subRevoke, describeRevoke, user(describeRevokeUser), &discordgo.ApplicationCommandOption{
					Type: discordgo.ApplicationCommandOptionString, Name: optionReason, Description: describeRevokeReason,
					MaxLength: maxReasonLength,
				}),
				subcommand(subTop, describeTop, &discordgo.ApplicationCommandOption{
					Type: discordgo.ApplicationCommandOptionString, Name: optionPeriod, Description: describeTopPeriod,
					Choices: []*discordgo.ApplicationCommandOptionChoice{{Name: periodDay, Value: periodDay}, {Name: periodWeek, Value: periodWeek}},
				}),
			},
		},
		{
			Name: commandClan, Description: describeClan, DMPermission: &noDMs, DefaultMemberPermissions: &moderators,
			Options: []*discordgo.ApplicationCommandOption{
				subcommand(subWeekly, describeClanWeekly,
					&discordgo.ApplicationCommandOption{Type: discordgo.ApplicationCommandOptionString, Name: optionTag, Description: describeClanTag, Required: true},
					&discordgo.ApplicationCommandOption{
						Type: discordgo.ApplicationCommandOptionString, Name: optionState, Description: describeClanState, Required: true,
						Choices: []*discordgo.ApplicationCommandOptionChoice{{Name: stateOn, Value: stateOn}, {Name: stateOff, Value: stateOff}},
					}),
			},
		},
	}
}

// registerCommands replaces the bot's slash commands in the community
// server with commandDefinitions (guild commands update at once), within
// RequestTimeout.
func (b *Bot) registerCommands(ctx context.Context, applicationID string) error {
	ctx, cancel := b.requestContext(ctx)
	defer cancel()
	_, err := b.session.ApplicationCommandBulkOverwrite(applicationID, b.cfg.GuildID, commandDefinitions(), discordgo.WithContext(ctx))
	return err
}

// inviteURL is the link that adds the bot to a server with the scopes
// and permissions it needs.
func inviteURL(applicationID string) string {
	return fmt.Sprintf("https://discord.com/oauth2/authorize?client_id=%s&scope=bot+applications.commands&permissions=%d",
		applicationID, botPermissions)
}

// isModerator reports whether a member's permissions (as the interaction
// computed them) allow moderator commands.
func isModerator(member *discordgo.Member) bool {
	return member != nil && member.Permissions&moderatorPermissions != 0
}
