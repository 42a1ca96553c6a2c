package models

// migrations lists every schema change in the order it is applied. Append
// only: a released migration is never edited, a later one alters it.
// Versions 2 and 3 belong to changes developed alongside version 4; Migrate
// applies whichever a database lacks, in ascending order.
func migrations() []migration {
	return []migration{
		{version: 1, name: "developer_keys", statements: developerKeysSchema},
		{version: 4, name: "bot_cursors", statements: botCursorsSchema},
	}
}
