package models

import (
	"time"
)

// TournamentRefreshClaim asks for stored tournaments due for a full lookup.
type TournamentRefreshClaim struct {
	// Owner names the claiming replica.
	Owner string
	// Now is the claim's time.
	Now time.Time
	// StaleAfter is how long a tournament that has not ended may go
	// without a sighting before it is due.
	StaleAfter time.Duration
	// Lease is how long the claimed tournaments are the owner's; saving
	// one releases it earlier. After the lease another replica may claim
	// it again, so a failed lookup is retried after the lease.
	Lease time.Duration
	// Limit bounds how many tournaments one claim takes.
	Limit int
}
