package models

import (
	"strings"
	"time"
)

// Who started tracking a clan (tracked_clans.tracked_by).
const (
	// TrackedByKey: a developer key's track request, after the address
	// check; TrackedByKeyID names the key.
	TrackedByKey = "key"
	// TrackedByOperator: the operator's `crowns clans track`, which
	// overrides the address check (Override is set).
	TrackedByOperator = "operator"
)

// DescriptionHasAddress reports whether a clan description contains the
// tracking address, ignoring case: what a developer key's track request
// needs, and what makes a tracked clan legible at each snapshot.
func DescriptionHasAddress(description, address string) bool {
	return strings.Contains(strings.ToLower(description), strings.ToLower(address))
}

// TrackedClan is a row of tracked_clans.
type TrackedClan struct {
	ID     int64
	Tag    string
	Name   string
	Active bool
	Weekly bool
	// Legible: the description contained the tracking address at the last
	// check (LastCheckedAt).
	Legible bool
	// Override: tracking was started by the operator, without the address
	// check.
	Override       bool
	TrackedSince   time.Time
	TrackedBy      string
	TrackedByKeyID *int64
	LastCheckedAt  *time.Time
	UntrackedAt    *time.Time
}

// TrackRequest asks to start tracking a clan, with the data just fetched
// from the upstream.
type TrackRequest struct {
	// Tag is the normalized tag the caller asked for.
	Tag  string
	Clan ClanDetails
	// Legible: the description contains the tracking address.
	Legible bool
	// By is TrackedByKey (with KeyID) or TrackedByOperator.
	By    string
	KeyID int64
	Now   time.Time
}

// TrackResult says what a track request did.
type TrackResult struct {
	Clan TrackedClan
	// AlreadyTracked: the clan was tracked before; nothing about its
	// tracking changed.
	AlreadyTracked bool
	// SnapshotStored: the current 4-hourly slot's snapshot was stored from
	// the request's data (false when that slot already had one).
	SnapshotStored bool
}

// TrackedClanSummary is a line of `crowns clans list`.
type TrackedClanSummary struct {
	TrackedClan
	SnapshotCount int64
	// LastSlot is the latest stored slot of either schedule; nil without
	// snapshots.
	LastSlot *time.Time
}
