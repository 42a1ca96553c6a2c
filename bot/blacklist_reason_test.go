package bot_test

import (
	"strings"
	"testing"
)

// A moderator may paste the leaked key into the reason of a
// blacklisting: the answer repeats the reason as it is kept, the key
// redacted, as the log channel shows it. (The desk's clean-up checks no
// request to Discord but a direct message held a key.)
func TestABlacklistReasonHoldingAKeyIsAnsweredRedacted(t *testing.T) {
	for _, via := range []string{"command", "form"} {
		t.Run(via, func(t *testing.T) {
			d := newDesk(t, deskOptions{logChannel: logChannelID})
			key := d.getKey(developerID)
			reason := "published " + key + " on a forum"
			var answer string
			if via == "command" {
				answer = d.answerText(d.keyadmin(moderatorPerms, "blacklist", userOption(developerID), stringOption("reason", reason)))
			} else {
				answer = d.answerText(d.submitReason(moderatorID, moderatorPerms, reason))
			}
			if strings.Contains(answer, key) || !strings.Contains(answer, "is blacklisted (published crw_[redacted] on a forum)") {
				t.Errorf("answer = %q, want the reason with the key redacted", answer)
			}
			if _, err := d.bot.PostPendingEvents(t.Context()); err != nil {
				t.Fatal(err)
			}
			if posts := strings.Join(d.channelPosts(logChannelID), "\n"); !strings.Contains(posts, "Reason: published crw_[redacted] on a forum") {
				t.Errorf("log channel: %q", posts)
			}
		})
	}
}
