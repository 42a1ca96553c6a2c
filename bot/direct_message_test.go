package bot_test

import (
	"strings"
	"testing"

	"github.com/crownsdev/crowns/bot/discordtest"
	"github.com/crownsdev/crowns/models"
)

func TestClosedDirectMessagesExplainTheSettingAndPostNoKey(t *testing.T) {
	refusals := []struct {
		name string
		rule discordtest.Rule
	}{
		{name: "refused when sending", rule: discordtest.Rule{Method: "POST", Path: "/channels/" + discordtest.DMChannelID(developerID) + "/messages", Failure: discordtest.DMClosed}},
		{name: "refused when opening", rule: discordtest.Rule{Method: "POST", Path: "/users/@me/channels", Failure: discordtest.DMClosed}},
	}
	for _, refusal := range refusals {
		for _, via := range vias {
			t.Run(refusal.name+"/"+via, func(t *testing.T) {
				d := newDesk(t, deskOptions{})
				d.discord.Fail(refusal.rule)
				answer := d.ask(via, keyChannelID, developerID, "get")
				if !strings.Contains(answer, "Allow direct messages from server members") || !strings.Contains(answer, "Privacy Settings") {
					t.Errorf("answer = %q, want how to allow direct messages", answer)
				}
				// No request body anywhere holds a key, except the
				// direct message Discord refused to deliver.
				var refusedKey string
				for _, r := range d.discord.Requests() {
					body := string(r.Body)
					if !strings.Contains(body, "crw_") {
						continue
					}
					if r.Path != "/channels/"+discordtest.DMChannelID(developerID)+"/messages" {
						t.Errorf("a key was sent to %s %s", r.Method, r.Path)
					}
					refusedKey = keyPattern.FindString(body)
				}
				if refusedKey != "" {
					for _, post := range d.channelPosts(keyChannelID) {
						if strings.Contains(post, refusedKey) {
							t.Errorf("the key was posted in the channel")
						}
					}
				}

				// Once direct messages are open, asking again delivers.
				d.discord.Heal()
				if answer := d.ask(via, keyChannelID, developerID, "get"); !strings.Contains(answer, "direct messages") {
					t.Errorf("after opening direct messages: %q", answer)
				}
				d.assertVerdict(d.keyFromLastDM(developerID), nil)
			})
		}
	}
}

func TestClosedDirectMessagesAfterRegenerateSayHowToReceiveTheNewKey(t *testing.T) {
	d := newDesk(t, deskOptions{})
	old := d.getKey(developerID)
	d.slash(developerID, keyChannelID, 0, "key", "regenerate")
	d.discord.Fail(discordtest.Rule{Method: "POST", Path: "/channels/" + discordtest.DMChannelID(developerID) + "/messages", Failure: discordtest.DMClosed})
	answer := d.answerText(d.press(developerID, developerID))
	if !strings.Contains(answer, "new key is ready") || !strings.Contains(answer, "/key get") || strings.Contains(answer, "crw_") {
		t.Errorf("answer = %q", answer)
	}
	d.assertVerdict(old, models.ErrUnknownKey)
	d.discord.Heal()
	d.assertNewKeyWorks(developerID, old)
}
