package bot_test

import (
	"testing"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/crownsdev/crowns/bot/discordtest"
	"github.com/crownsdev/crowns/internal/metricstest"
)

func TestCommandAndDirectMessageMetrics(t *testing.T) {
	reg := prometheus.NewRegistry()
	d := newDesk(t, deskOptions{metrics: reg})
	d.ask("slash", keyChannelID, developerID, "get")
	d.ask("text", keyChannelID, developerID, "get")
	d.ask("text", keyChannelID, developerID, "help")
	d.ask("text", keyChannelID, developerID, "revoke")
	d.answerText(d.slash(developerID, otherChannelID, 0, "key", "get"))
	d.answerText(d.slash(developerID, keyChannelID, 0, "keyadmin", "info", userOption(otherDevID)))
	dm := "/channels/" + discordtest.DMChannelID(otherDevID) + "/messages"
	d.discord.Fail(discordtest.Rule{Method: "POST", Path: dm, Failure: discordtest.DMClosed})
	d.ask("slash", keyChannelID, otherDevID, "get")
	d.discord.Heal()
	d.discord.Fail(discordtest.Rule{Method: "POST", Path: dm, Failure: discordtest.Forbidden})
	d.ask("slash", keyChannelID, otherDevID, "get")
	d.discord.Heal()

	families := metricstest.Gather(t, reg)
	checkCommandCounts(t, families, []commandCount{
		{"key get", "ok", 4}, // two delivered, two explained failures
		{"key get", "refused", 1},
		{"key help", "ok", 1},
		{"keyadmin info", "refused", 1},
		{"key regenerate", "ok", 0},
		{"key revoke", "ok", 1},
		{"clan weekly", "ok", 0},
		{"unknown", "ok", 0},
	})
	for reason, want := range map[string]float64{"closed": 1, "failed": 1} {
		if got := families.Value("crowns_bot_direct_message_failures_total", map[string]string{"reason": reason}); got != want {
			t.Errorf("crowns_bot_direct_message_failures_total{reason=%q} = %v, want %v", reason, got, want)
		}
	}
}

// A text command refused for its channel and a confirmation button
// pressed by another member, or whose press Discord did not take, are
// counted like the slash commands they stand beside.
func TestCommandMetricsCountRefusedTextCommandsAndButtons(t *testing.T) {
	reg := prometheus.NewRegistry()
	d := newDesk(t, deskOptions{metrics: reg})
	d.ask("text", otherChannelID, developerID, "get")
	d.ask("slash", keyChannelID, developerID, "get")
	d.ask("slash", keyChannelID, developerID, "regenerate")
	d.press(otherDevID, developerID)
	d.discord.Fail(discordtest.Rule{Method: "POST", Path: "/interactions/*/*/callback", Failure: discordtest.Forbidden})
	d.press(developerID, developerID)
	d.discord.Heal()

	families := metricstest.Gather(t, reg)
	checkCommandCounts(t, families, []commandCount{
		{"key get", "refused", 1},
		{"key get", "ok", 1},
		{"key regenerate", "ok", 1},
		{"key regenerate", "refused", 1},
		{"key regenerate", "unanswered", 1},
	})
}

// commandCount is the count of crowns_bot_commands_total a test expects
// for a command and outcome.
type commandCount struct {
	command, outcome string
	want             float64
}

// checkCommandCounts checks crowns_bot_commands_total against want.
func checkCommandCounts(t *testing.T, families metricstest.Families, want []commandCount) {
	t.Helper()
	for _, tt := range want {
		labels := map[string]string{"command": tt.command, "outcome": tt.outcome}
		if got := families.Value("crowns_bot_commands_total", labels); got != tt.want {
			t.Errorf("crowns_bot_commands_total%v = %v, want %v", labels, got, tt.want)
		}
	}
}
