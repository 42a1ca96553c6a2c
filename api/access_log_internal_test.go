package api

import (
	"bytes"
	"context"
	"log/slog"
	"testing"
	"time"
)

// TestAccessLogWritesWhatSlogWrites: the fast access-log line is byte for
// byte the line slog's text and JSON handlers write for the same record,
// in UTC and in another zone, with and without a key id; strings that
// would need quoting are left to slog.
func TestAccessLogWritesWhatSlogWrites(t *testing.T) {
	paris := time.FixedZone("CET", 3600)
	entries := map[string]accessEntry{
		"authenticated": {
			time: time.Date(2026, 11, 22, 10, 24, 9, 123456789, time.UTC), requestID: []byte("3fa1c09e-1k2j"),
			method: "GET", route: "/clan/:tag/history", status: 200, latency: 1234567 * time.Nanosecond,
			keyID: 42, authenticated: true,
		},
		"anonymous, whole second": {
			time: time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC), requestID: []byte("caller.id_42"),
			method: "HEAD", route: "/healthz", status: 401, latency: 850 * time.Microsecond,
		},
		"other zone, monotonic reading": {
			time: time.Now().In(paris), requestID: []byte("a"), method: "GET", route: "/player/:tag/battles",
			status: 304, latency: 3 * time.Second, keyID: 7, authenticated: true,
		},
		"unmatched path": {
			time: time.Date(2026, 5, 31, 23, 59, 59, 999999999, time.UTC), requestID: []byte("b"),
			method: "GET", route: "/nope/%20x~y+z@w", status: 404, latency: time.Millisecond,
		},
	}
	for _, json := range []bool{false, true} {
		for name, entry := range entries {
			var fast, slow bytes.Buffer
			log := NewAccessLog(&fast, json)
			if !log.write(&entry) {
				t.Fatalf("%s (json %v): the fast path refused a plain entry", name, json)
			}
			if err := log.Flush(); err != nil {
				t.Fatal(err)
			}
			var handler slog.Handler = slog.NewTextHandler(&slow, nil)
			if json {
				handler = slog.NewJSONHandler(&slow, nil)
			}
			record := slog.NewRecord(entry.time, slog.LevelInfo, accessLogMessage, 0)
			entry.attrs(&record)
			if err := handler.Handle(context.Background(), record); err != nil {
				t.Fatal(err)
			}
			if fast.String() != slow.String() {
				t.Errorf("%s (json %v):\nfast %q\nslog %q", name, json, fast.String(), slow.String())
			}
		}
	}
}

func TestAccessLogLeavesQuotedStringsToSlog(t *testing.T) {
	for _, route := range []string{"", "/a b", `/a"b`, "/a=b", "/a\\b", "/é", "/a\nb", "/a<b"} {
		var out bytes.Buffer
		entry := accessEntry{time: time.Now(), requestID: []byte("x"), method: "GET", route: route, status: 404}
		log := NewAccessLog(&out, false)
		if log.write(&entry) || log.Flush() != nil || out.Len() != 0 {
			t.Errorf("route %q: written by the fast path: %q", route, out.String())
		}
	}
}

// TestAccessLogTimesMatchSlogAcrossSecondsAndZones: one AccessLog renders
// a run of times — within a second, across seconds, a day, a year, zones
// and a daylight-saving change — as slog does, whether the second it
// renders was rendered for the line before or not.
func TestAccessLogTimesMatchSlogAcrossSecondsAndZones(t *testing.T) {
	newYork, err := time.LoadLocation("America/New_York")
	if err != nil {
		newYork = time.FixedZone("EST", -5*3600)
	}
	starts := []time.Time{
		time.Date(2026, 12, 31, 23, 59, 58, 0, time.UTC),
		time.Date(2026, 3, 8, 1, 59, 59, 0, newYork), // clocks go forward at 2:00
		time.Date(2026, 6, 1, 12, 0, 0, 0, time.FixedZone("", 5*3600+1800)),
		time.Now(),
	}
	steps := []time.Duration{0, 1, 999, time.Microsecond, 120 * time.Millisecond, 7 * time.Millisecond, 999 * time.Millisecond, time.Second}
	for _, json := range []bool{false, true} {
		var fast bytes.Buffer
		log := NewAccessLog(&fast, json)
		for _, start := range starts {
			at := start
			for round := range 40 {
				at = at.Add(steps[round%len(steps)])
				fast.Reset()
				entry := accessEntry{time: at, requestID: []byte("t"), method: "GET", route: "/healthz", status: 200, latency: time.Millisecond}
				if !log.write(&entry) {
					t.Fatal("the fast path refused a plain entry")
				}
				if err := log.Flush(); err != nil {
					t.Fatal(err)
				}
				var slow bytes.Buffer
				var handler slog.Handler = slog.NewTextHandler(&slow, nil)
				if json {
					handler = slog.NewJSONHandler(&slow, nil)
				}
				record := slog.NewRecord(at, slog.LevelInfo, accessLogMessage, 0)
				entry.attrs(&record)
				_ = handler.Handle(context.Background(), record)
				if fast.String() != slow.String() {
					t.Fatalf("time %v (json %v):\nfast %q\nslog %q", at, json, fast.String(), slow.String())
				}
			}
		}
	}
}
