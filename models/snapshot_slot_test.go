package models_test

import (
	"testing"
	"time"

	"github.com/crownsdev/crowns/models"
)

func at(value string) time.Time {
	t, err := time.Parse(time.RFC3339, value)
	if err != nil {
		panic(err)
	}
	return t
}

func TestSlots(t *testing.T) {
	const (
		fourHourly = models.SnapshotFourHourly
		weekly     = models.SnapshotWeekly
	)
	tests := []struct {
		kind      models.SnapshotKind
		name      string
		now, slot string
		next      string
	}{
		{fourHourly, "exactly on a slot", "2026-03-10T08:00:00Z", "2026-03-10T08:00:00Z", "2026-03-10T12:00:00Z"},
		{fourHourly, "a second before a slot", "2026-03-10T07:59:59Z", "2026-03-10T04:00:00Z", "2026-03-10T08:00:00Z"},
		{fourHourly, "last slot of the day", "2026-03-10T23:59:59Z", "2026-03-10T20:00:00Z", "2026-03-11T00:00:00Z"},
		{fourHourly, "midnight", "2026-03-11T00:00:00Z", "2026-03-11T00:00:00Z", "2026-03-11T04:00:00Z"},
		{fourHourly, "month end", "2026-04-30T22:10:00Z", "2026-04-30T20:00:00Z", "2026-05-01T00:00:00Z"},
		{fourHourly, "year end", "2026-12-31T21:00:00Z", "2026-12-31T20:00:00Z", "2027-01-01T00:00:00Z"},
		{fourHourly, "leap day", "2028-02-29T13:00:00Z", "2028-02-29T12:00:00Z", "2028-02-29T16:00:00Z"},
		{fourHourly, "leap day to March", "2028-02-29T23:00:00Z", "2028-02-29T20:00:00Z", "2028-03-01T00:00:00Z"},
		{fourHourly, "not a leap year", "2027-02-28T20:30:00Z", "2027-02-28T20:00:00Z", "2027-03-01T00:00:00Z"},
		{fourHourly, "non-UTC input", "2026-03-10T09:30:00+02:00", "2026-03-10T04:00:00Z", "2026-03-10T08:00:00Z"},
		{fourHourly, "before the epoch", "1969-12-31T23:00:00Z", "1969-12-31T20:00:00Z", "1970-01-01T00:00:00Z"},
		{weekly, "Monday 23:00 exactly", "2026-03-09T23:00:00Z", "2026-03-09T23:00:00Z", "2026-03-16T23:00:00Z"},
		{weekly, "Monday 22:59:59", "2026-03-09T22:59:59Z", "2026-03-02T23:00:00Z", "2026-03-09T23:00:00Z"},
		{weekly, "Tuesday early", "2026-03-10T02:00:00Z", "2026-03-09T23:00:00Z", "2026-03-16T23:00:00Z"},
		{weekly, "Sunday", "2026-03-15T12:00:00Z", "2026-03-09T23:00:00Z", "2026-03-16T23:00:00Z"},
		{weekly, "Monday morning", "2026-03-16T00:00:00Z", "2026-03-09T23:00:00Z", "2026-03-16T23:00:00Z"},
		{weekly, "across a month", "2026-06-01T10:00:00Z", "2026-05-25T23:00:00Z", "2026-06-01T23:00:00Z"},
		{weekly, "across a year", "2027-01-01T00:00:00Z", "2026-12-28T23:00:00Z", "2027-01-04T23:00:00Z"},
		{weekly, "leap week", "2028-03-01T00:00:00Z", "2028-02-28T23:00:00Z", "2028-03-06T23:00:00Z"},
		{weekly, "first weekly slot after the epoch", "1970-01-06T00:00:00Z", "1970-01-05T23:00:00Z", "1970-01-12T23:00:00Z"},
		{weekly, "before the first weekly slot", "1970-01-05T22:00:00Z", "1969-12-29T23:00:00Z", "1970-01-05T23:00:00Z"},
	}
	for _, tt := range tests {
		t.Run(tt.kind.String()+"/"+tt.name, func(t *testing.T) {
			now := at(tt.now)
			got := tt.kind.SlotAt(now)
			if !got.Equal(at(tt.slot)) || got.Location() != time.UTC {
				t.Errorf("SlotAt(%s) = %s, want %s in UTC", tt.now, got, tt.slot)
			}
			if tt.kind == weekly && (got.Weekday() != time.Monday || got.Hour() != 23 || got.Minute() != 0) {
				t.Errorf("SlotAt(%s) = %s is not a Monday 23:00 UTC", tt.now, got)
			}
			if next := tt.kind.NextSlot(now); !next.Equal(at(tt.next)) {
				t.Errorf("NextSlot(%s) = %s, want %s", tt.now, next, tt.next)
			}
		})
	}
}

func TestSlotWindows(t *testing.T) {
	tests := []struct {
		kind   models.SnapshotKind
		window time.Duration
	}{
		{models.SnapshotFourHourly, 4 * time.Hour},
		{models.SnapshotWeekly, 4 * time.Hour},
	}
	for _, tt := range tests {
		if got := tt.kind.Window(); got != tt.window {
			t.Errorf("%s window = %s, want %s", tt.kind, got, tt.window)
		}
		if tt.kind.Window() > tt.kind.Period() {
			t.Errorf("%s window %s overlaps the next slot", tt.kind, tt.kind.Window())
		}
	}
}

func TestHistoryWindow(t *testing.T) {
	tests := []struct {
		name string
		now  string
		days int
		from string
	}{
		{"today only", "2026-03-10T15:00:00Z", 0, "2026-03-10T00:00:00Z"},
		{"a week", "2026-03-10T15:00:00Z", 7, "2026-03-03T00:00:00Z"},
		{"across a year", "2027-01-02T01:00:00Z", 3, "2026-12-30T00:00:00Z"},
		{"across a leap day", "2028-03-01T00:00:00Z", 1, "2028-02-29T00:00:00Z"},
		{"a year", "2026-03-10T15:00:00Z", 365, "2025-03-10T00:00:00Z"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			from, to := models.HistoryWindow(at(tt.now), tt.days)
			if !from.Equal(at(tt.from)) || !to.Equal(at(tt.now)) {
				t.Errorf("HistoryWindow(%s, %d) = [%s, %s], want [%s, %s]", tt.now, tt.days, from, to, tt.from, tt.now)
			}
		})
	}
}

func TestHistoryKey(t *testing.T) {
	if got := models.HistoryKey(at("2018-01-01T20:00:00+01:00")); got != "2018-01-01-19-00" {
		t.Errorf("HistoryKey = %q, want the UTC time 2018-01-01-19-00", got)
	}
}
