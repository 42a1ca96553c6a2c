package models

import (
	"fmt"
	"time"
)

// SnapshotKind tells which schedule a clan snapshot belongs to. It is stored
// as a small integer in clan_snapshots.kind and snapshot_jobs.kind.
type SnapshotKind int16

// The two snapshot schedules.
const (
	// SnapshotFourHourly is taken at 00, 04, 08, 12, 16 and 20 UTC.
	SnapshotFourHourly SnapshotKind = 1
	// SnapshotWeekly is taken on Mondays at 23:00 UTC, for clans with weekly
	// collection enabled.
	SnapshotWeekly SnapshotKind = 2
)

// Slot lengths and the offset of the weekly slot from the Unix epoch
// (Thursday 1970-01-01 00:00 UTC): the first Monday 23:00 UTC is 1970-01-05
// 23:00, 4 days and 23 hours later.
const (
	fourHourlyPeriod = 4 * time.Hour
	weeklyPeriod     = 7 * 24 * time.Hour
	weeklyEpochShift = (4*24 + 23) * time.Hour
)

// weeklyWindow is how long after Monday 23:00 UTC a weekly snapshot may
// still be taken. The weekly snapshot records the week that ends at the
// slot; a fetch much later would describe the next week instead. Four hours
// ride out a short upstream maintenance or a rolling restart, match the
// tolerance of the 4-hourly schedule, and end (Tuesday 03:00 UTC) long
// before the new week's numbers mean anything.
const weeklyWindow = 4 * time.Hour

// HistoryKeyLayout formats a slot time as the key of a history answer:
// YYYY-MM-DD-HH-mm in UTC.
const HistoryKeyLayout = "2006-01-02-15-04"

// Valid reports whether k is one of the known schedules.
func (k SnapshotKind) Valid() bool {
	return k == SnapshotFourHourly || k == SnapshotWeekly
}

// String names the schedule for logs and operator output.
func (k SnapshotKind) String() string {
	switch k {
	case SnapshotFourHourly:
		return "4-hourly"
	case SnapshotWeekly:
		return "weekly"
	}
	return fmt.Sprintf("kind(%d)", int16(k))
}

// Period is the time between two slots of the schedule.
func (k SnapshotKind) Period() time.Duration {
	if k == SnapshotWeekly {
		return weeklyPeriod
	}
	return fourHourlyPeriod
}

// Window is how long after its slot time a snapshot may still be taken;
// when it ends without a stored snapshot the slot is recorded as missed.
// A 4-hourly slot can be taken until the next one begins, so the current
// slot is always catchable after downtime; a weekly slot for weeklyWindow.
func (k SnapshotKind) Window() time.Duration {
	if k == SnapshotWeekly {
		return weeklyWindow
	}
	return fourHourlyPeriod
}

// SlotAt returns the latest slot time of the schedule at or before t, in
// UTC.
func (k SnapshotKind) SlotAt(t time.Time) time.Time {
	shift := time.Duration(0)
	if k == SnapshotWeekly {
		shift = weeklyEpochShift
	}
	period := int64(k.Period() / time.Second)
	since := t.Unix() - int64(shift/time.Second)
	slots := since / period
	if since%period < 0 {
		slots-- // floor division for times before the first slot
	}
	return time.Unix(slots*period+int64(shift/time.Second), 0).UTC()
}

// NextSlot returns the earliest slot time of the schedule strictly after
// t.
func (k SnapshotKind) NextSlot(t time.Time) time.Time {
	return k.SlotAt(t).Add(k.Period())
}

// HistoryKey formats a slot time as the key of a history answer.
func HistoryKey(slot time.Time) string {
	return slot.UTC().Format(HistoryKeyLayout)
}

// HistoryWindow returns the time range a history request of days covers:
// from midnight UTC of the day days before now's day, to now, both
// inclusive. days=0 is today (UTC) only.
func HistoryWindow(now time.Time, days int) (from, to time.Time) {
	now = now.UTC()
	today := time.Date(now.Year(), now.Month(), now.Day(), 0, 0, 0, 0, time.UTC)
	return today.AddDate(0, 0, -days), now
}

// HistoryKeptSince is the oldest slot time kept with retentionDays days of
// history: midnight UTC of the day retentionDays before now's day, the
// start of a history request of that many days. Retention removes only
// slots before it, so a history answer of days up to retentionDays shows
// every slot of its window.
func HistoryKeptSince(now time.Time, retentionDays int) time.Time {
	from, _ := HistoryWindow(now, retentionDays)
	return from
}
