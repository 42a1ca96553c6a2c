package bot_test

import (
	"encoding/json"
	"testing"

	"github.com/bwmarrin/discordgo"
)

func TestSlashAnswersAreEphemeral(t *testing.T) {
	asks := []struct {
		name string
		ask  func(d *desk) *discordgo.Interaction
	}{
		{"key get", func(d *desk) *discordgo.Interaction { return d.slash(developerID, keyChannelID, 0, "key", "get") }},
		{"key get elsewhere", func(d *desk) *discordgo.Interaction { return d.slash(developerID, otherChannelID, 0, "key", "get") }},
		{"key regenerate", func(d *desk) *discordgo.Interaction {
			d.getKey(developerID)
			return d.slash(developerID, keyChannelID, 0, "key", "regenerate")
		}},
		{"someone else's button", func(d *desk) *discordgo.Interaction {
			d.getKey(developerID)
			d.slash(developerID, keyChannelID, 0, "key", "regenerate")
			return d.press(otherDevID, developerID)
		}},
		{"keyadmin info", func(d *desk) *discordgo.Interaction {
			return d.keyadmin(moderatorPerms, "info", userOption(developerID))
		}},
		{"keyadmin by a member", func(d *desk) *discordgo.Interaction {
			return d.slash(developerID, keyChannelID, 0, "keyadmin", "info", userOption(developerID))
		}},
	}
	for _, a := range asks {
		t.Run(a.name, func(t *testing.T) {
			d := newDesk(t, deskOptions{})
			d.assertEphemeral(a.ask(d))
		})
	}
}

func TestTheOwnersButtonUpdatesTheEphemeralAnswerInPlace(t *testing.T) {
	d := newDesk(t, deskOptions{})
	d.getKey(developerID)
	d.assertEphemeral(d.slash(developerID, keyChannelID, 0, "key", "regenerate"))
	press := d.press(developerID, developerID)
	callbacks := d.discord.RequestsTo("POST", "/interactions/"+press.ID+"/"+press.Token+"/callback")
	if len(callbacks) != 1 {
		t.Fatalf("the press was acknowledged %d times, want 1", len(callbacks))
	}
	var reply struct {
		Type discordgo.InteractionResponseType `json:"type"`
	}
	if err := json.Unmarshal(callbacks[0].Body, &reply); err != nil {
		t.Fatal(err)
	}
	if reply.Type != discordgo.InteractionResponseDeferredMessageUpdate {
		t.Errorf("the press was acknowledged with type %d, want an update of the message (%d)", reply.Type, discordgo.InteractionResponseDeferredMessageUpdate)
	}
}
