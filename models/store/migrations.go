package store

// migrations lists every schema change in the order it is applied. Append
// only: a released migration is never edited, a later one alters it.
func migrations() []migration {
	return []migration{
		{version: 1, name: "developer_keys", statements: developerKeysSchema},
		{version: 2, name: "bot_cursors", statements: botCursorsSchema},
		{version: 3, name: "clan_tracking", statements: clanTrackingSchema},
		{version: 4, name: "tournaments", statements: tournamentsSchema},
		{version: 5, name: "snapshot_job_order", statements: snapshotJobOrderSchema},
		{version: 6, name: "tournament_requests", statements: tournamentRequestsSchema},
		{version: 7, name: "game_catalogs", statements: gameCatalogsSchema},
		{version: 8, name: "snapshot_score", statements: snapshotScoreSchema},
		{version: 9, name: "settings", statements: settingsSchema},
		{version: 10, name: "key_usage", statements: keyUsageSchema},
		{version: 13, name: "clan_changes", statements: clanChangesSchema},
		{version: 14, name: "replicas", statements: replicasSchema},
		{version: 15, name: "leak_notice_cursor", statements: leakNoticeCursorSchema},
		{version: 16, name: "usage_alerts", statements: usageAlertsSchema},
		{version: 17, name: "key_usage_batches", statements: keyUsageBatchesSchema},
		{version: 18, name: "tournament_unknown_values", statements: tournamentUnknownValuesSchema},
	}
}
