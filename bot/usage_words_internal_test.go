package bot

import (
	"slices"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/crownsdev/crowns/keys"
	"github.com/crownsdev/crowns/models"
)

// TestUsageSummaryCountsInWords: one of a thing is singular, any other
// count plural, in the totals moderators read.
func TestUsageSummaryCountsInWords(t *testing.T) {
	for _, tc := range []struct {
		count models.KeyUsageCount
		want  string
	}{
		{models.KeyUsageCount{Requests: 1, ClientErrors: 1, ServerErrors: 1}, "1 request, 0 rate-limited (0%), 1 client error, 1 server error"},
		{models.KeyUsageCount{Requests: 2, RateLimited: 1}, "2 requests, 1 rate-limited (50%), 0 client errors, 0 server errors"},
	} {
		report := models.KeyUsageReport{Days: []models.KeyUsageDay{{KeyUsageCount: tc.count}}}
		if got := textUsageSummary(report); !strings.HasPrefix(got, tc.want) {
			t.Errorf("summary of %+v = %q, want it to start %q", tc.count, got, tc.want)
		}
	}
}

// TestBlacklistFormTitleFitsDiscord: the form names the developer, and a
// hand-made developer id too long for Discord's 45-character title is cut
// to fit.
func TestBlacklistFormTitleFitsDiscord(t *testing.T) {
	if got := blacklistFormTitle("800000000000000001"); got != "Blacklist developer 800000000000000001" {
		t.Errorf("title %q", got)
	}
	long := strings.Repeat("é", 60)
	if got := blacklistFormTitle(long); utf8.RuneCountInString(got) != 45 || !strings.HasPrefix(got, "Blacklist developer éé") {
		t.Errorf("title of a long id: %q, %d characters, want 45", got, utf8.RuneCountInString(got))
	}
}

// TestInfoTitleShowsANicknameAsTyped: the markdown of a nickname is
// escaped in /keyadmin info's title, so Discord shows what the member
// typed.
func TestInfoTitleShowsANicknameAsTyped(t *testing.T) {
	embed := infoEmbed(keys.DeveloperInfo{DiscordUserID: "800000000000000001", DisplayName: "__x__ *y* [z](w) `v` \\"})
	if want := "Developer \\_\\_x\\_\\_ \\*y\\* \\[z\\]\\(w\\) \\`v\\` \\\\"; embed.Title != want {
		t.Errorf("title %q, want %q", embed.Title, want)
	}
}

// TestShareIsNeverRoundedToNoneOrAll: a share rounds to a whole percent,
// but a key refused 1 request in 1,000 does not read as refused none, nor
// one refused all but one as refused all.
func TestShareIsNeverRoundedToNoneOrAll(t *testing.T) {
	for _, tc := range []struct {
		part, whole int64
		want        string
	}{
		{0, 0, "0%"}, {0, 1000, "0%"}, {1, 1000, "<1%"}, {5, 1000, "<1%"}, {10, 1000, "1%"}, {15, 40, "38%"},
		{990, 1000, "99%"}, {994, 1000, ">99%"}, {999, 1000, ">99%"}, {1000, 1000, "100%"},
	} {
		if got := share(tc.part, tc.whole); got != tc.want {
			t.Errorf("share(%d, %d) = %q, want %q", tc.part, tc.whole, got, tc.want)
		}
	}
}

// TestTopKeysCountRequestsInWords: /keyadmin top says "1 request" of a
// key used once, as the usage summary does, and "2 requests" of one used
// twice.
func TestTopKeysCountRequestsInWords(t *testing.T) {
	text := textTopKeys(periodDay, []models.KeyUsageTotal{
		{KeyID: 7, DiscordUserID: "800000000000000001", KeyUsageCount: models.KeyUsageCount{Requests: 2, RateLimited: 1}},
		{KeyID: 8, DiscordUserID: "800000000000000002", KeyUsageCount: models.KeyUsageCount{Requests: 1}},
	})
	for _, want := range []string{"(key record #7): 2 requests, 50% rate-limited", "(key record #8): 1 request, 0% rate-limited"} {
		if !strings.Contains(text, want) {
			t.Errorf("top keys:\n%s\nwant a line with %q", text, want)
		}
	}
}

// TestAJumpAlertCountsTheKeysHoursInWords: a key that existed an hour and
// a bit before the alert's hours is averaged over "the 1 hour it existed
// before", two hours and more over "the 2 hours".
func TestAJumpAlertCountsTheKeysHoursInWords(t *testing.T) {
	recentFrom := time.Date(2025, 6, 2, 8, 0, 0, 0, time.UTC)
	for _, tc := range []struct {
		existed time.Duration
		want    string
	}{
		{80 * time.Minute, "against 0.0 an hour over the 1 hour it existed before."},
		{2 * time.Hour, "against 0.0 an hour over the 2 hours it existed before."},
	} {
		alerts := usageAlertsOf([]models.KeyUsageWindows{{
			KeyID: 1, DiscordUserID: "800000000000000001", KeyCreatedAt: recentFrom.Add(-tc.existed),
			Recent: models.KeyUsageCount{Requests: 5000},
		}}, recentFrom, 10)
		if len(alerts) != 1 || !slices.Contains(alerts[0].evidence, "5000 requests since 08:00 UTC, "+tc.want) {
			t.Errorf("alerts of a key %s old: %+v, want the evidence %q", tc.existed, alerts, tc.want)
		}
	}
}
