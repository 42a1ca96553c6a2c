package store_test

import (
	"time"

	"github.com/crownsdev/crowns/models"
)

// atPtr is at, for a time a row may lack.
func atPtr(value string) *time.Time {
	t := at(value)
	return &t
}

// upgradedFromSchema5 is what today's release reads of fillSchema5's rows.
func upgradedFromSchema5() upgraded {
	keyID := func(id int64) *int64 { return &id }
	iris, bo, kai, irisRenamed := "Ïris", "Bo", "Kai", "Iris II"
	member := func(name string, rank, trophies, donations, crowns int) models.HistoryMember {
		tag := map[string]string{iris: "2PY0Q8", bo: "2P9CUL", kai: "2PJRG0", irisRenamed: "2PY0Q8"}[name]
		return models.HistoryMember{ClanRank: rank, Crowns: crowns, Donations: donations, Name: name, Tag: tag, Trophies: trophies}
	}
	return upgraded{
		developers: []models.DeveloperInfo{
			{DeveloperID: 1, DiscordUserID: ana, DisplayName: "ana", State: models.DeveloperActive, CreatedAt: at("2026-11-01T09:00:00Z"),
				CurrentKeyID: 3, KeyCreatedAt: atPtr("2026-11-03T10:00:00Z"), LatestKeyID: 3, LastUsedAt: atPtr("2026-11-21T18:00:00Z"),
				KeyCounts: map[models.KeyState]int{models.KeyReplaced: 1, models.KeyActive: 1}},
			{DeveloperID: 2, DiscordUserID: ben, DisplayName: "ben", State: models.DeveloperDisabled, CreatedAt: at("2026-11-02T12:00:00Z"),
				CurrentKeyID: 2, KeyCreatedAt: atPtr("2026-11-02T12:00:00Z"), LatestKeyID: 2,
				KeyCounts: map[models.KeyState]int{models.KeyDisabled: 1}},
			{DeveloperID: 3, DiscordUserID: zoe, DisplayName: "Zoë", State: models.DeveloperBlacklisted, CreatedAt: at("2026-11-04T11:00:00Z"),
				LatestKeyID: 4, BlacklistReason: "resold keys", BlacklistedBy: moderator, BlacklistedAt: atPtr("2026-11-12T15:00:00Z"),
				KeyCounts: map[models.KeyState]int{models.KeyBlacklisted: 1}},
			{DeveloperID: 4, DiscordUserID: dan, DisplayName: "dan", State: models.DeveloperWithoutKey, CreatedAt: at("2026-11-05T13:00:00Z"),
				LatestKeyID: 5, KeyCounts: map[models.KeyState]int{models.KeyRevoked: 1}},
			{DeveloperID: 5, DiscordUserID: eve, DisplayName: "eve", State: models.DeveloperBlacklisted, CreatedAt: at("2026-11-16T09:00:00Z"),
				BlacklistReason: "spam", BlacklistedBy: "cli", BlacklistedAt: atPtr("2026-11-16T09:00:00Z"),
				KeyCounts: map[models.KeyState]int{}},
		},
		events: []models.KeyEvent{
			{ID: 1, DeveloperID: 1, DiscordUserID: ana, KeyID: keyID(1), Action: models.KeyActionIssued, Actor: "discord:" + ana, CreatedAt: at("2026-11-01T09:00:00Z")},
			{ID: 2, DeveloperID: 2, DiscordUserID: ben, KeyID: keyID(2), Action: models.KeyActionIssued, Actor: "discord:" + ben, CreatedAt: at("2026-11-02T12:00:00Z")},
			{ID: 3, DeveloperID: 1, DiscordUserID: ana, KeyID: keyID(3), Action: models.KeyActionRegenerated, Actor: "discord:" + ana, Reason: "replaces key 1", CreatedAt: at("2026-11-03T10:00:00Z")},
			{ID: 4, DeveloperID: 3, DiscordUserID: zoe, KeyID: keyID(4), Action: models.KeyActionIssued, Actor: "discord:" + zoe, CreatedAt: at("2026-11-04T11:00:00Z")},
			{ID: 5, DeveloperID: 4, DiscordUserID: dan, KeyID: keyID(5), Action: models.KeyActionIssued, Actor: "discord:" + dan, CreatedAt: at("2026-11-05T13:00:00Z")},
			{ID: 6, DeveloperID: 2, DiscordUserID: ben, KeyID: keyID(2), Action: models.KeyActionDisabled, Actor: "bot", Reason: "left the server", CreatedAt: at("2026-11-10T08:00:00Z")},
			{ID: 7, DeveloperID: 3, DiscordUserID: zoe, KeyID: keyID(4), Action: models.KeyActionBlacklisted, Actor: moderator, Reason: "resold keys", CreatedAt: at("2026-11-12T15:00:00Z")},
			{ID: 8, DeveloperID: 4, DiscordUserID: dan, KeyID: keyID(5), Action: models.KeyActionRevoked, Actor: "cli", Reason: "published on a forum", CreatedAt: at("2026-11-15T17:30:00Z")},
			{ID: 9, DeveloperID: 5, DiscordUserID: eve, Action: models.KeyActionBlacklisted, Actor: "cli", Reason: "spam", CreatedAt: at("2026-11-16T09:00:00Z")},
		},
		// Migration 15 starts the leak notices where the log channel is.
		cursors: map[string]int64{"audit-log": 7, "leak-notices": 7},
		clans: []models.TrackedClanSummary{
			{TrackedClan: models.TrackedClan{ID: 2, Tag: fourHourly, Name: "Ça Roule", Active: true, Override: true,
				TrackedSince: at("2026-11-19T16:05:00Z"), TrackedBy: models.TrackedByOperator, LastCheckedAt: atPtr("2026-11-20T08:00:03Z")},
				SnapshotCount: 1, LastSlot: atPtr("2026-11-20T08:00:00Z")},
			{TrackedClan: models.TrackedClan{ID: 1, Tag: weeklyClan, Name: "Crown Keepers", Active: true, Weekly: true, Legible: true,
				TrackedSince: at("2026-11-06T09:30:00Z"), TrackedBy: models.TrackedByKey, TrackedByKeyID: keyID(3), LastCheckedAt: atPtr("2026-11-20T08:00:04Z")},
				SnapshotCount: 5, LastSlot: atPtr("2026-11-20T08:00:00Z")},
			{TrackedClan: models.TrackedClan{ID: 3, Tag: untrackedTag, Name: "Gone Fishing", Weekly: true, Legible: true,
				TrackedSince: at("2026-11-07T10:00:00Z"), TrackedBy: models.TrackedByKey, TrackedByKeyID: keyID(5),
				LastCheckedAt: atPtr("2026-11-18T08:00:02Z"), UntrackedAt: atPtr("2026-11-18T12:00:00Z")},
				SnapshotCount: 1, LastSlot: atPtr("2026-11-18T08:00:00Z")},
		},
		fourHourly: []models.HistorySnapshot{
			{Slot: at("2026-11-20T00:00:00Z"), Donations: 115, MemberCount: 3, Members: []models.HistoryMember{
				member(iris, 1, 6120, 40, 12), member(bo, 2, 5980, 0, 0), member(kai, 3, 5400, 75, 3)}},
			{Slot: at("2026-11-20T04:00:00Z"), Donations: 124, MemberCount: 3, Members: []models.HistoryMember{
				member(iris, 1, 6131, 44, 12), member(kai, 2, 5990, 80, 5), member(bo, 3, 5980, 0, 0)}},
			{Slot: at("2026-11-20T08:00:00Z"), Donations: 141, MemberCount: 2, Members: []models.HistoryMember{
				member(irisRenamed, 1, 6140, 51, 20), member(kai, 2, 5995, 90, 7)}},
		},
		weekly: []models.HistorySnapshot{
			{Slot: at("2026-11-09T23:00:00Z"), Donations: 420, MemberCount: 2, Members: []models.HistoryMember{
				member(iris, 1, 6050, 300, 80), member(bo, 2, 5900, 120, 40)}},
			{Slot: at("2026-11-16T23:00:00Z"), Donations: 660, MemberCount: 3, Members: []models.HistoryMember{
				member(iris, 1, 6100, 310, 85), member(bo, 2, 5960, 150, 44), member(kai, 3, 5380, 200, 60)}},
		},
		otherFourHourly: []models.HistorySnapshot{
			{Slot: at("2026-11-20T08:00:00Z"), Donations: 2, MemberCount: 1, Members: []models.HistoryMember{member(bo, 1, 5981, 2, 0)}},
		},
		jobs: []models.SnapshotJobStatus{
			{ClanID: 1, Kind: models.SnapshotFourHourly, Slot: at("2026-11-20T08:00:00Z").Unix(), State: models.JobDone, Attempts: 1,
				DueAt: at("2026-11-20T08:00:00Z").UnixMilli(), DeadlineAt: at("2026-11-20T12:00:00Z").UnixMilli(), LeaseOwner: "replica-a"},
			{ClanID: 1, Kind: models.SnapshotFourHourly, Slot: at("2026-11-20T12:00:00Z").Unix(), State: models.JobPending, Attempts: 2,
				DueAt: at("2026-11-20T12:06:00Z").UnixMilli(), DeadlineAt: at("2026-11-20T16:00:00Z").UnixMilli(), LastError: "upstream: 503"},
		},
		// Most recently updated first.
		tournaments: []models.TournamentRecord{
			{TournamentDetails: models.TournamentDetails{Tag: "2PGGC0", Type: models.TournamentTypeOpen, Status: models.TournamentInPreparation,
				Name: "Söndagsturnering", Capacity: 3, MaxCapacity: 1000, PreparationDuration: 7200, Duration: 3600,
				CreatedTime: at("2026-11-21T12:00:00Z")}, UpdatedAt: at("2026-11-21T12:10:00Z")},
			{TournamentDetails: models.TournamentDetails{Tag: "2PRUVY", Type: models.TournamentTypeOpen, Status: models.TournamentInProgress,
				Name: "Friday Cup", Description: "no decks over 4 elixir", Capacity: 37, MaxCapacity: 50, PreparationDuration: 3600, Duration: 7200,
				CreatedTime: at("2026-11-21T10:00:00Z"), StartedTime: at("2026-11-21T11:00:00Z")}, UpdatedAt: at("2026-11-21T11:30:00Z")},
			{TournamentDetails: models.TournamentDetails{Tag: "2P0LLY", Type: models.TournamentTypePasswordProtected, Status: models.TournamentEnded,
				Name: "Clan Night", Description: "members only", Capacity: 20, MaxCapacity: 20, PreparationDuration: 600, Duration: 3600,
				CreatedTime: at("2026-11-19T20:00:00Z"), StartedTime: at("2026-11-19T20:10:00Z"), EndedTime: at("2026-11-19T21:10:00Z")},
				UpdatedAt: at("2026-11-19T21:15:00Z")},
		},
		// Migration 6: nobody can say a client asked for them.
		known: []models.TournamentRecord{},
		usage: models.KeyUsageReport{KeyID: 3, KeyCreatedAt: at("2026-11-03T10:00:00Z"), LastUsedAt: atPtr("2026-11-21T18:00:00Z"), Routes: map[string]int64{}},
	}
}

// upgradedFromSchema15 is what today's release reads of fillSchema15's
// rows: those of schema 5 and what came since.
func upgradedFromSchema15() upgraded {
	want := upgradedFromSchema5()
	want.cursors = map[string]int64{"audit-log": 9, "leak-notices": 8}
	want.clans[1].SnapshotCount, want.clans[1].LastSlot = 6, atPtr("2026-11-24T12:00:00Z")
	want.fourHourly = append(want.fourHourly, models.HistorySnapshot{
		Slot: at("2026-11-24T12:00:00Z"), Donations: 14, MemberCount: 2, Score: 51234, Members: []models.HistoryMember{
			{ClanRank: 1, Crowns: 0, Donations: 5, Name: "Iris II", Tag: "2PY0Q8", Trophies: 6200},
			{ClanRank: 2, Crowns: 1, Donations: 9, Name: "Kai", Tag: "2PJRG0", Trophies: 6001},
		}})
	knownCup := models.TournamentRecord{TournamentDetails: models.TournamentDetails{Tag: "2PUU99", Type: models.TournamentTypeOpen,
		Status: models.TournamentInPreparation, Name: "Known Cup", Capacity: 8, MaxCapacity: 100, PreparationDuration: 3600, Duration: 3600,
		CreatedTime: at("2026-11-24T08:30:00Z")}, UpdatedAt: at("2026-11-24T09:00:00Z")}
	want.tournaments = append([]models.TournamentRecord{knownCup}, want.tournaments...)
	want.known = []models.TournamentRecord{knownCup}
	want.usage.Days = []models.KeyUsageDay{
		{Day: at("2026-11-23T00:00:00Z"), KeyUsageCount: models.KeyUsageCount{Requests: 160, RateLimited: 3, ClientErrors: 2, ServerErrors: 1}},
		{Day: at("2026-11-24T00:00:00Z"), KeyUsageCount: models.KeyUsageCount{Requests: 5}},
	}
	want.usage.Routes = map[string]int64{"/v1/clans/:tag": 125, "/v1/players/:tag/battlelog": 40}
	want.secretRecorded = true
	want.catalog = &models.GameCatalogCopy{Kind: "cards", Body: []byte(`{"items":[{"id":26000000,"name":"Knight"}]}`), FetchedAt: at("2026-11-24T06:00:00Z")}
	return want
}
