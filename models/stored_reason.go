package models

// ReasonColumn names where a free-text reason given to a key's
// transition is stored.
type ReasonColumn string

// The stored reasons.
const (
	// ReasonOfKeyEvent is the reason recorded with a key event.
	ReasonOfKeyEvent ReasonColumn = "key event"
	// ReasonOfKeyState is why a key entered its state (APIKey.StateReason).
	ReasonOfKeyState ReasonColumn = "key state"
	// ReasonOfBlacklisting is why a developer was blacklisted
	// (Developer.BlacklistReason).
	ReasonOfBlacklisting ReasonColumn = "blacklisting"
)

// ReasonColumns lists every column a reason is stored in.
func ReasonColumns() []ReasonColumn {
	return []ReasonColumn{ReasonOfKeyEvent, ReasonOfKeyState, ReasonOfBlacklisting}
}

// StoredReason is one reason as stored: its column, the id of its row
// and its text.
type StoredReason struct {
	Column ReasonColumn
	ID     int64
	Text   string
}
