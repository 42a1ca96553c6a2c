package models

// migrations lists every schema change in the order it is applied. Append
// only: a released migration is never edited, a later one alters it.
// Version 2 is taken by a change that lands separately; the migrator
// applies whatever versions a database lacks, in order.
func migrations() []migration {
	return []migration{
		{version: 1, name: "developer_keys", statements: developerKeysSchema},
		{version: 3, name: "clan_tracking", statements: clanTrackingSchema},
	}
}
