package bot

import "testing"

// A lost gateway is reconnected by Run alone, with the house backoff:
// discordgo's own reconnect loop, which would race it with waits of its
// own, stays off.
func TestTheSessionLeavesReconnectingToRun(t *testing.T) {
	b, err := New(Config{Token: "token", GuildID: "1", KeyChannelID: "2"}, Dependencies{Keys: unusedKeys{}, Cursors: unusedCursors{}})
	if err != nil {
		t.Fatal(err)
	}
	if b.session.ShouldReconnectOnError {
		t.Fatal("discordgo reconnects lost gateways itself")
	}
}

// unusedKeys and unusedCursors stand in for dependencies New keeps but
// does not call.
type (
	unusedKeys    struct{ KeyService }
	unusedCursors struct{ CursorStore }
)
