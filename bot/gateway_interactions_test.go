package bot_test

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/bwmarrin/discordgo"

	"github.com/crownsdev/crowns/bot/discordtest"
	"github.com/crownsdev/crowns/models"
)

// TestOddInteractionsFromTheGatewayAreAnsweredAndChangeNothing sends,
// over the gateway and in the JSON Discord sends, the interactions the
// bot must survive: a slash command from a direct message (a user, no
// member), one whose member carries no user, a confirmation button from
// before a restart, a button of an id the bot no longer makes, a
// blacklist form whose field is missing, and a command, a button and a
// form whose data discordgo cannot decode. Each is answered once, only to
// its member, and changes nothing.
func TestOddInteractionsFromTheGatewayAreAnsweredAndChangeNothing(t *testing.T) {
	d := newDesk(t, deskOptions{})
	key := d.getKey(developerID)
	user := fmt.Sprintf(`{"id":%q,"username":"dev","global_name":null,"discriminator":"0","avatar":null}`, developerID)
	member := func(permissions int64, user string) string {
		return fmt.Sprintf(`"guild_id":%q,"member":{%s"roles":[],"permissions":"%d","joined_at":"2025-01-01T00:00:00Z"}`, guildID, user, permissions)
	}
	withUser := `"user":` + user + `,`
	getKey := `"data":{"id":"900000000000000050","name":"key","type":1,"options":[{"name":"get","type":1}]}`
	tests := []struct {
		name, interaction string
		// callback is the type of the initial response; answer is in its
		// text, or else in the edit of the original response.
		callback discordgo.InteractionResponseType
		answer   string
	}{
		{"slash command from a direct message", `"type":2,"context":1,"channel_id":"700000000000000040","user":` + user + `,` + getKey,
			discordgo.InteractionResponseDeferredChannelMessageWithSource, "only works in its community server"},
		{"slash command of a member without user", `"type":2,"context":0,"channel_id":"` + keyChannelID + `",` + member(0, "") + `,` + getKey,
			discordgo.InteractionResponseDeferredChannelMessageWithSource, "only works in its community server"},
		{"confirmation button from before a restart", `"type":3,"channel_id":"` + keyChannelID + `",` + member(0, withUser) +
			`,"data":{"custom_id":"crowns:regenerate:` + developerID + `","component_type":2}`,
			discordgo.InteractionResponseDeferredMessageUpdate, "That confirmation has expired"},
		{"button of an id no longer made", `"type":3,"channel_id":"` + logChannelID + `",` + member(moderatorPerms, withUser) +
			`,"data":{"custom_id":"crowns:retired:` + developerID + `","component_type":2}`,
			discordgo.InteractionResponseChannelMessageWithSource, "This button isn't for you"},
		{"blacklist form without its field", `"type":5,"channel_id":"` + logChannelID + `",` + member(moderatorPerms, withUser) +
			`,"data":{"custom_id":"crowns:blacklist-reason:` + developerID + `","components":[]}`,
			discordgo.InteractionResponseDeferredChannelMessageWithSource, "a blacklisting needs a reason"},
		// Data discordgo cannot decode (a type or field newer than the
		// library) reaches the handlers as an interaction with no data.
		{"slash command whose data does not decode", `"type":2,"channel_id":"` + keyChannelID + `",` + member(0, withUser) +
			`,"data":{"id":"900000000000000050","name":"key","type":1,"options":{"name":"get"}}`,
			discordgo.InteractionResponseDeferredChannelMessageWithSource, "I don't know that command"},
		{"button whose data does not decode", `"type":3,"channel_id":"` + keyChannelID + `",` + member(0, withUser) +
			`,"data":{"custom_id":["crowns:regenerate:` + developerID + `"],"component_type":2}`,
			discordgo.InteractionResponseChannelMessageWithSource, "This button isn't for you"},
		{"form whose data does not decode", `"type":5,"channel_id":"` + logChannelID + `",` + member(moderatorPerms, withUser) +
			`,"data":{"custom_id":"crowns:blacklist-reason:` + developerID + `","components":{}}`,
			discordgo.InteractionResponseDeferredChannelMessageWithSource, "I don't know that command"},
	}
	var events []discordtest.GatewayEvent
	interactions := make([]*discordgo.Interaction, len(tests))
	for n, tt := range tests {
		interactions[n] = &discordgo.Interaction{ID: d.id(), AppID: discordtest.DefaultApplicationID, Token: "token-" + d.id()}
		events = append(events, discordtest.GatewayEvent{Type: "INTERACTION_CREATE", Data: json.RawMessage(fmt.Sprintf(
			`{"id":%q,"application_id":%q,"token":%q,"version":1,%s}`,
			interactions[n].ID, interactions[n].AppID, interactions[n].Token, tt.interaction))})
	}
	d.discord.SetMembers(developerID)
	d.discord.SetGateway(discordtest.GatewayScript{GuildIDs: []string{guildID}, Events: events})
	stop := d.run()
	d.discord.Await(t, "POST", "/interactions/*/*/callback", len(tests), awaitTimeout)
	edited := 0
	for _, tt := range tests {
		if tt.callback != discordgo.InteractionResponseChannelMessageWithSource {
			edited++
		}
	}
	d.discord.Await(t, "PATCH", "/webhooks/*/*/messages/@original", edited, awaitTimeout)
	if err := stop(); err != nil {
		t.Fatal(err)
	}

	for n, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			i := interactions[n]
			var response struct {
				Type discordgo.InteractionResponseType `json:"type"`
				Data struct {
					Content string                 `json:"content"`
					Flags   discordgo.MessageFlags `json:"flags"`
				} `json:"data"`
			}
			if err := json.Unmarshal(d.callback(i), &response); err != nil {
				t.Fatal(err)
			}
			if response.Type != tt.callback {
				t.Fatalf("answered with a response of type %d, want %d", response.Type, tt.callback)
			}
			text := response.Data.Content
			if tt.callback != discordgo.InteractionResponseChannelMessageWithSource {
				text = d.answerText(i)
			}
			if !strings.Contains(text, tt.answer) {
				t.Errorf("answered %q, want %q", text, tt.answer)
			}
			if tt.callback != discordgo.InteractionResponseDeferredMessageUpdate && response.Data.Flags&discordgo.MessageFlagsEphemeral == 0 {
				t.Errorf("the answer is not only for its member: flags %d", response.Data.Flags)
			}
		})
	}
	d.assertVerdict(key, nil)
	if opened := d.discord.RequestsTo("POST", "/users/@me/channels"); len(opened) != 1 {
		t.Errorf("%d direct message channels opened, want only the first /key get's", len(opened))
	}
	if info, err := d.keys.Info(t.Context(), developerID); err != nil || info.State != models.DeveloperActive {
		t.Errorf("the developer is %q (%v), want active", info.State, err)
	}
}
