package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"slices"
	"time"

	"github.com/crownsdev/crowns/models"
	"github.com/crownsdev/crowns/models/store"
)

// maxHistoryFile bounds the history file an import reads: a year of
// 4-hourly snapshots of a full clan is about 8 MB of JSON.
const maxHistoryFile = 64 << 20

// importHistory stores the snapshots of a history answer in the legacy
// shape (what GET /clan/:tag/history or /history/weekly answers, here or
// on the legacy service: an object keyed by slot) for a clan tracked now
// or before. Slots already stored are left as they are.
func importHistory(ctx context.Context, env cli, cfg config, clans *store.Store, req clansRequest) error {
	kind := models.SnapshotFourHourly
	if req.weekly {
		kind = models.SnapshotWeekly
	}
	now := env.clock.Now()
	span := historySpan{
		kind:   kind,
		oldest: models.HistoryKeptSince(now, cfg.HistoryRetentionDays),
		newest: kind.SlotAt(now),
	}
	snapshots, err := readHistoryFile(req.file, span)
	if err != nil {
		return err
	}
	clan, err := clans.TrackedClan(ctx, req.tag)
	if err != nil {
		return err
	}
	stored, err := clans.SaveSnapshots(ctx, clan.ID, kind, snapshots)
	if err != nil {
		return err
	}
	_, err = fmt.Fprintf(env.stdout, "import: %s of %s stored, %s; %s already stored kept\n",
		count(stored, kind.String()+" snapshot"), req.tag, slotSpan(snapshots), count(len(snapshots)-stored, "slot"))
	if err == nil && kind == models.SnapshotWeekly && !clan.Weekly {
		_, err = fmt.Fprintf(env.stdout, "import: weekly collection is off for %s, so /clan/%s/history/weekly answers 417 until crowns clans weekly %s on\n",
			req.tag, req.tag, req.tag)
	}
	return err
}

// slotSpan words the slots of snapshots, oldest first: "at SLOT" for
// one, "from OLDEST to NEWEST" for more.
func slotSpan(snapshots []models.HistorySnapshot) string {
	oldest := models.HistoryKey(snapshots[0].Slot)
	if len(snapshots) == 1 {
		return "at " + oldest
	}
	return "from " + oldest + " to " + models.HistoryKey(snapshots[len(snapshots)-1].Slot)
}

// count is n things, in words: "1 slot", "2 slots".
func count(n int, thing string) string {
	if n == 1 {
		return "1 " + thing
	}
	return fmt.Sprintf("%d %ss", n, thing)
}

// historySpan is what an import takes: slots of kind from oldest (the
// retention's bound: older ones would be pruned at once) to newest (the
// current slot: a later one would stand in for the snapshot the scheduler
// takes then).
type historySpan struct {
	kind           models.SnapshotKind
	oldest, newest time.Time
}

// readHistoryFile reads the snapshots within span of the history file at
// path ("-": standard input), in slot order.
func readHistoryFile(path string, span historySpan) ([]models.HistorySnapshot, error) {
	var in io.Reader = os.Stdin
	name := "standard input"
	if path != "-" {
		f, err := os.Open(path)
		if err != nil {
			return nil, err
		}
		defer func() { _ = f.Close() }() // read only: nothing to lose
		in, name = f, path
	}
	snapshots, err := parseHistory(io.LimitReader(in, maxHistoryFile+1), span)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	return snapshots, nil
}

// errNotHistory words a file that is not a history answer.
var errNotHistory = errors.New("not a history answer: want the JSON object, keyed by slot, that GET /clan/TAG/history answers")

// parseHistory reads a history object: each key a slot of span's kind,
// within it, written as history answers write them (YYYY-MM-DD-HH-mm,
// UTC); each value a snapshot of the clan's members, as many as its
// memberCount says, their tags valid (stored as Crowns stores them:
// upper-case, without #), a NUL in a name replaced as the game API's are.
func parseHistory(in io.Reader, span historySpan) ([]models.HistorySnapshot, error) {
	raw, err := io.ReadAll(in)
	if err != nil {
		return nil, err
	}
	if len(raw) > maxHistoryFile {
		return nil, fmt.Errorf("larger than %d MiB", maxHistoryFile>>20)
	}
	models.MakeJSONStorable(raw)
	var bySlot map[string]*models.HistorySnapshot
	if err := json.Unmarshal(raw, &bySlot); err != nil {
		return nil, errNotHistory
	}
	if len(bySlot) == 0 {
		return nil, errors.New("no snapshots")
	}
	snapshots := make([]models.HistorySnapshot, 0, len(bySlot))
	for key, snapshot := range bySlot {
		slot, err := span.slotOf(key)
		if err != nil {
			return nil, err
		}
		if err := checkImportedSnapshot(key, snapshot); err != nil {
			return nil, err
		}
		snapshot.Slot = slot
		snapshots = append(snapshots, *snapshot)
	}
	slices.SortFunc(snapshots, func(a, b models.HistorySnapshot) int { return a.Slot.Compare(b.Slot) })
	return snapshots, nil
}

// slotOf is the slot a history key names, if it is one of span.
func (span historySpan) slotOf(key string) (time.Time, error) {
	slot, err := time.ParseInLocation(models.HistoryKeyLayout, key, time.UTC)
	switch {
	case err != nil || models.HistoryKey(slot) != key || !span.kind.SlotAt(slot).Equal(slot):
		return time.Time{}, fmt.Errorf("%q is not a %s slot (YYYY-MM-DD-HH-mm, UTC)", key, span.kind)
	case slot.After(span.newest):
		return time.Time{}, fmt.Errorf("slot %s is in the future (the current one is %s)", key, models.HistoryKey(span.newest))
	case slot.Before(span.oldest):
		return time.Time{}, fmt.Errorf("slot %s is older than the history kept (CROWNS_HISTORY_RETENTION_DAYS: since %s)",
			key, span.oldest.Format(time.DateOnly))
	}
	return slot, nil
}

// checkImportedSnapshot checks the snapshot of slot key, and normalizes
// its members' tags.
func checkImportedSnapshot(key string, snapshot *models.HistorySnapshot) error {
	switch {
	case snapshot == nil || len(snapshot.Members) == 0:
		return fmt.Errorf("slot %s has no members", key)
	case snapshot.MemberCount != len(snapshot.Members):
		return fmt.Errorf("slot %s says memberCount %d but lists %s", key, snapshot.MemberCount, count(len(snapshot.Members), "member"))
	}
	for i, member := range snapshot.Members {
		tag, err := models.NormalizeTag(member.Tag)
		if err != nil {
			return fmt.Errorf("slot %s, member %d: %w", key, i+1, err)
		}
		snapshot.Members[i].Tag = tag
	}
	return nil
}
