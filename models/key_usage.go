package models

import (
	"cmp"
	"slices"
	"time"
)

// KeyUsageRetention is how long per-hour key usage is kept.
const KeyUsageRetention = 30 * 24 * time.Hour

// KeyUsageBatchRetention is how long the id of a written KeyUsageBatch is
// kept: a batch tried again within it is never added twice. A process
// tries a failed batch again at each flush (every few seconds), so a
// batch still unsent a day after it was first tried is one the database
// kept refusing while it answered; if that batch had in fact been written
// before, its counts would be added a second time.
const KeyUsageBatchRetention = 24 * time.Hour

// KeyUsageBatch is one flush's counts, written all at once or not at
// all, and at most once: ID names it, so that a batch tried again after a
// failure whose outcome is unknown is added only if it was not before.
// At is when it was first tried, by which its ID is deleted after
// KeyUsageBatchRetention.
type KeyUsageBatch struct {
	ID     string
	At     time.Time
	Counts map[KeyUsageCell]KeyUsageCount
}

// KeyUsageCount is what was counted of one key's requests to one route in
// one UTC hour: every answered request, and among them the refused ones
// (429) and the other errors (4xx and 5xx).
type KeyUsageCount struct {
	Requests     int64
	RateLimited  int64
	ClientErrors int64
	ServerErrors int64
}

// Add adds other's counts to c.
func (c *KeyUsageCount) Add(other KeyUsageCount) {
	c.Requests += other.Requests
	c.RateLimited += other.RateLimited
	c.ClientErrors += other.ClientErrors
	c.ServerErrors += other.ServerErrors
}

// KeyUsageCell names one counter: a key, a UTC hour (its start) and a
// route pattern.
type KeyUsageCell struct {
	KeyID int64
	Hour  time.Time
	Route string
}

// KeyUsageWindows is one key's usage, all routes together, in two
// windows of hours: recent ones, and the baseline before them; with when
// the key was created, as a key younger than the baseline's window was
// used for part of it only.
type KeyUsageWindows struct {
	KeyID         int64
	DiscordUserID string
	KeyCreatedAt  time.Time
	Recent        KeyUsageCount
	Baseline      KeyUsageCount
}

// KeyUsageDay is one key's usage in one UTC day.
type KeyUsageDay struct {
	// Day is the day's start (UTC midnight).
	Day time.Time
	KeyUsageCount
}

// KeyUsageReport is one key's stored usage since a time: per UTC day
// (days without requests absent, ascending) and per route pattern.
type KeyUsageReport struct {
	KeyID        int64
	KeyCreatedAt time.Time
	// LastUsedAt is the key's latest use as of the last flush; nil when
	// never used.
	LastUsedAt *time.Time
	Days       []KeyUsageDay
	Routes     map[string]int64
}

// Total sums the report's days.
func (r KeyUsageReport) Total() KeyUsageCount {
	var total KeyUsageCount
	for _, d := range r.Days {
		total.Add(d.KeyUsageCount)
	}
	return total
}

// RoutesByUse lists the report's route patterns by requests, most first.
func (r KeyUsageReport) RoutesByUse() []string {
	names := make([]string, 0, len(r.Routes))
	for route := range r.Routes {
		names = append(names, route)
	}
	slices.SortFunc(names, func(a, b string) int {
		return cmp.Or(cmp.Compare(r.Routes[b], r.Routes[a]), cmp.Compare(a, b))
	})
	return names
}

// KeyUsageTotal is one key's usage over a period, with its owner.
type KeyUsageTotal struct {
	KeyID         int64
	DiscordUserID string
	KeyUsageCount
}
