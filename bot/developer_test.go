package bot_test

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/bwmarrin/discordgo"

	"github.com/crownsdev/crowns/models"
)

// ask runs "get" or "regenerate" as a slash or a text command in a
// channel and returns the bot's answer there.
func (d *desk) ask(via, channelID, userID, sub string) string {
	d.t.Helper()
	if via == "slash" {
		return d.answerText(d.slash(userID, channelID, 0, "key", sub))
	}
	before := len(d.channelPosts(channelID))
	d.say(userID, channelID, "!key "+sub)
	posts := d.channelPosts(channelID)
	if len(posts) != before+1 {
		d.t.Fatalf("text command got %d answers, want 1", len(posts)-before)
	}
	return posts[len(posts)-1]
}

var vias = []string{"slash", "text"}

func TestGetInKeyChannelSendsWorkingKeyByDirectMessageOnly(t *testing.T) {
	for _, via := range vias {
		t.Run(via, func(t *testing.T) {
			d := newDesk(t, deskOptions{})
			answer := d.ask(via, keyChannelID, developerID, "get")
			if !strings.Contains(answer, "check your direct messages") {
				t.Errorf("answer = %q, want a pointer to the direct messages", answer)
			}
			if strings.Contains(answer, "crw_") {
				t.Errorf("answer in the channel holds a key: %q", answer)
			}
			key := d.keyFromLastDM(developerID)
			d.assertVerdict(key, nil)
			if via == "text" {
				if deleted := d.discord.RequestsTo("DELETE", "/channels/"+keyChannelID+"/messages/*"); len(deleted) != 1 {
					t.Errorf("command message deleted %d times, want once", len(deleted))
				}
			}
		})
	}
}

func TestGetOutsideKeyChannelPointsToItAndIssuesNothing(t *testing.T) {
	for _, via := range vias {
		t.Run(via, func(t *testing.T) {
			d := newDesk(t, deskOptions{})
			answer := d.ask(via, otherChannelID, developerID, "get")
			if !strings.Contains(answer, "<#"+keyChannelID+">") {
				t.Errorf("answer = %q, want a pointer to the key channel", answer)
			}
			if dms := d.discord.RequestsTo("POST", "/users/@me/channels"); len(dms) != 0 {
				t.Errorf("a direct message was opened from the wrong channel")
			}
			if _, err := d.keys.Info(t.Context(), developerID); !errors.Is(err, models.ErrNotFound) {
				t.Errorf("developer recorded from the wrong channel: err = %v", err)
			}
		})
	}
}

func TestTextCommandsAreRecognisedOnlyWithThePrefix(t *testing.T) {
	tests := []struct {
		prefix     string
		content    string
		wantAnswer string // "" means the bot stays silent
	}{
		{content: "!key get", wantAnswer: "check your direct messages"},
		{content: "  !KEY Get  ", wantAnswer: "check your direct messages"},
		{content: "!key", wantAnswer: "`!key get` sends your developer key"},
		{content: "!key please", wantAnswer: "`!key get` sends your developer key"},
		{content: "!keys get"},
		{content: "how do I use !key get?"},
		{content: ""},
		{prefix: "crowns key", content: "Crowns  Key get", wantAnswer: "check your direct messages"},
		{prefix: "crowns key", content: "crowns key", wantAnswer: "`crowns key get` sends your developer key"},
		{prefix: "crowns key", content: "crowns keyget"},
		{prefix: "crowns key", content: "!key get"},
	}
	for _, tt := range tests {
		t.Run(tt.prefix+"|"+tt.content, func(t *testing.T) {
			d := newDesk(t, deskOptions{prefix: tt.prefix})
			d.say(developerID, keyChannelID, tt.content)
			posts := d.channelPosts(keyChannelID)
			if tt.wantAnswer == "" {
				if len(d.discord.Requests()) != 0 {
					t.Errorf("the bot reacted to %q: %v", tt.content, d.discord.Requests())
				}
				return
			}
			if len(posts) != 1 || !strings.Contains(posts[0], tt.wantAnswer) {
				t.Errorf("answers = %q, want one containing %q", posts, tt.wantAnswer)
			}
		})
	}
}

func TestMessagesOfBotsAndOtherServersAreIgnored(t *testing.T) {
	tests := []struct {
		name    string
		message discordgo.Message
	}{
		{name: "another server", message: discordgo.Message{GuildID: "999", Author: &discordgo.User{ID: developerID}}},
		{name: "a direct message", message: discordgo.Message{Author: &discordgo.User{ID: developerID}}},
		{name: "a bot", message: discordgo.Message{GuildID: guildID, Author: &discordgo.User{ID: developerID, Bot: true}}},
		// A webhook's message (an integration, or a proxy bot reposting a
		// member's words) has for author the webhook, with its id, and no
		// bot flag: no member to give a key to.
		{name: "a webhook", message: discordgo.Message{GuildID: guildID, WebhookID: "800000000000000077", Author: &discordgo.User{ID: "800000000000000077", Username: "proxy"}}},
		{name: "no author", message: discordgo.Message{GuildID: guildID}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d := newDesk(t, deskOptions{})
			m := tt.message
			m.ID, m.ChannelID, m.Content = d.id(), keyChannelID, "!key get"
			d.bot.HandleMessageCreate(t.Context(), &discordgo.MessageCreate{Message: &m})
			if requests := d.discord.Requests(); len(requests) != 0 {
				t.Errorf("the bot reacted: %v", requests)
			}
		})
	}
}

func TestReminderSendsTheSameKey(t *testing.T) {
	for _, via := range vias {
		t.Run(via, func(t *testing.T) {
			d := newDesk(t, deskOptions{})
			d.ask(via, keyChannelID, developerID, "get")
			first := d.keyFromLastDM(developerID)
			answer := d.ask(via, keyChannelID, developerID, "get")
			if !strings.Contains(answer, "again") {
				t.Errorf("reminder answer = %q, want it to say the key was sent again", answer)
			}
			if second := d.keyFromLastDM(developerID); second != first {
				t.Errorf("reminder sent a different key")
			}
			if dms := d.directMessages(developerID); len(dms) != 2 {
				t.Errorf("%d direct messages, want 2", len(dms))
			}
			d.assertVerdict(first, nil)
		})
	}
}

// Ways to confirm a request to regenerate, returning the answer.
var (
	pressTheButton = func(d *desk) string { return d.answerText(d.press(developerID, developerID)) }
	slashAgain     = func(d *desk) string { return d.ask("slash", keyChannelID, developerID, "regenerate") }
	textAgain      = func(d *desk) string { return d.ask("text", keyChannelID, developerID, "regenerate") }
)

func TestRegenerateReplacesTheKeyOnlyWhenConfirmedWithinSixtySeconds(t *testing.T) {
	tests := []struct {
		name     string
		wait     time.Duration
		confirm  func(d *desk) string
		want     string
		replaced bool
	}{
		{name: "button", confirm: pressTheButton, want: "new key is in your direct messages", replaced: true},
		{name: "slash command again", confirm: slashAgain, want: "new key is in your direct messages", replaced: true},
		{name: "text command again", confirm: textAgain, want: "new key is in your direct messages", replaced: true},
		{name: "command again at 60 s", wait: 60 * time.Second, confirm: slashAgain, want: "new key is in your direct messages", replaced: true},
		{name: "button at 61 s", wait: 61 * time.Second, confirm: pressTheButton, want: "confirmation has expired"},
		{name: "command again at 61 s asks again", wait: 61 * time.Second, confirm: textAgain, want: "every older key stops working at once"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d := newDesk(t, deskOptions{})
			old := d.getKey(developerID)
			text, _, button := d.answerOf(d.slash(developerID, keyChannelID, 0, "key", "regenerate"))
			if !strings.Contains(text, "every older key stops working at once") || !button {
				t.Fatalf("first regenerate answered %q (button %v), want a confirmation with a button", text, button)
			}
			if dms := d.directMessages(developerID); len(dms) != 1 {
				t.Fatalf("asking to confirm sent a direct message")
			}
			d.assertVerdict(old, nil)

			d.clock.Advance(tt.wait)
			if answer := tt.confirm(d); !strings.Contains(answer, tt.want) {
				t.Errorf("confirmation answered %q, want %q", answer, tt.want)
			}
			if !tt.replaced {
				if dms := d.directMessages(developerID); len(dms) != 1 {
					t.Errorf("a late confirmation sent a key")
				}
				d.assertVerdict(old, nil)
				return
			}
			fresh := d.keyFromLastDM(developerID)
			if fresh == old {
				t.Fatal("regenerate sent the old key")
			}
			d.assertVerdict(old, models.ErrUnknownKey)
			d.assertVerdict(fresh, nil)
		})
	}
}

func TestRegenerateButtonOnlyWorksForItsOwner(t *testing.T) {
	d := newDesk(t, deskOptions{})
	old := d.getKey(developerID)
	d.slash(developerID, keyChannelID, 0, "key", "regenerate")
	press := d.press(otherDevID, developerID)
	replies := d.discord.RequestsTo("POST", "/interactions/"+press.ID+"/"+press.Token+"/callback")
	if len(replies) != 1 || !strings.Contains(string(replies[0].Body), "isn't for you") {
		t.Errorf("someone else's press answered %v", replies)
	}
	d.assertVerdict(old, nil)
	if answer := d.answerText(d.press(developerID, developerID)); !strings.Contains(answer, "new key") {
		t.Errorf("the owner's press after someone else's answered %q", answer)
	}
}

func TestRegenerateWithoutKeyPointsToGet(t *testing.T) {
	d := newDesk(t, deskOptions{})
	if answer := d.ask("slash", keyChannelID, developerID, "regenerate"); !strings.Contains(answer, "don't have a developer key yet") {
		t.Errorf("answer = %q", answer)
	}
	if len(d.directMessages(developerID)) != 0 {
		t.Error("a key was sent")
	}
}
