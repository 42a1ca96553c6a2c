package models

// migrations lists every schema change in the order it is applied. Append
// only: a released migration is never edited, a later one alters it.
func migrations() []migration {
	return []migration{
		{version: 1, name: "developer_keys", statements: developerKeysSchema},
		{version: 2, name: "bot_cursors", statements: botCursorsSchema},
		// Version 3 is taken by a change that lands separately; the
		// migrator applies whatever versions a database lacks, in order.
		{version: 4, name: "tournaments", statements: tournamentsSchema},
	}
}
