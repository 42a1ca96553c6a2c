package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"slices"
	"time"

	"github.com/crownsdev/crowns/models"
	"github.com/crownsdev/crowns/models/store"
)

// maxHistoryFile bounds the history file an import reads: a year of
// 4-hourly snapshots of a full clan is about 20 MB of JSON.
const maxHistoryFile = 64 << 20

// importHistory stores the snapshots of a history answer in the legacy
// shape (what GET /clan/:tag/history or /history/weekly answers, here or
// on the legacy service: an object keyed by slot) for a clan tracked now
// or before. Slots already stored are left as they are.
func importHistory(ctx context.Context, env cli, clans *store.Store, req clansRequest) error {
	kind := models.SnapshotFourHourly
	if req.weekly {
		kind = models.SnapshotWeekly
	}
	snapshots, err := readHistoryFile(req.file, kind)
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
	_, err = fmt.Fprintf(env.stdout, "import: %d %s snapshots of %s stored, from %s to %s; %d slots had one already\n",
		stored, kind, req.tag, models.HistoryKey(snapshots[0].Slot), models.HistoryKey(snapshots[len(snapshots)-1].Slot), len(snapshots)-stored)
	return err
}

// readHistoryFile reads the snapshots of kind in the history file at path
// ("-": standard input), in slot order.
func readHistoryFile(path string, kind models.SnapshotKind) ([]models.HistorySnapshot, error) {
	var in io.Reader = os.Stdin
	if path != "-" {
		f, err := os.Open(path)
		if err != nil {
			return nil, err
		}
		defer func() { _ = f.Close() }() // read only: nothing to lose
		in = f
	}
	snapshots, err := parseHistory(io.LimitReader(in, maxHistoryFile+1), kind)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return snapshots, nil
}

// parseHistory reads a history object: each key a slot of kind
// (YYYY-MM-DD-HH-mm, UTC), each value a snapshot whose members have valid
// tags (stored as Crowns stores them: upper-case, without #).
func parseHistory(in io.Reader, kind models.SnapshotKind) ([]models.HistorySnapshot, error) {
	raw, err := io.ReadAll(in)
	if err != nil {
		return nil, err
	}
	if len(raw) > maxHistoryFile {
		return nil, fmt.Errorf("larger than %d MiB", maxHistoryFile>>20)
	}
	var bySlot map[string]models.HistorySnapshot
	if err := json.Unmarshal(raw, &bySlot); err != nil {
		return nil, fmt.Errorf("not a history object: %w", err)
	}
	if len(bySlot) == 0 {
		return nil, fmt.Errorf("no snapshots")
	}
	snapshots := make([]models.HistorySnapshot, 0, len(bySlot))
	for key, snapshot := range bySlot {
		slot, err := time.ParseInLocation(models.HistoryKeyLayout, key, time.UTC)
		if err != nil || !kind.SlotAt(slot).Equal(slot) {
			return nil, fmt.Errorf("%q is not a %s slot (YYYY-MM-DD-HH-mm, UTC)", key, kind)
		}
		for i, member := range snapshot.Members {
			tag, err := models.NormalizeTag(member.Tag)
			if err != nil {
				return nil, fmt.Errorf("slot %s, member %d: %w", key, i+1, err)
			}
			snapshot.Members[i].Tag = tag
		}
		snapshot.Slot = slot
		snapshots = append(snapshots, snapshot)
	}
	slices.SortFunc(snapshots, func(a, b models.HistorySnapshot) int { return a.Slot.Compare(b.Slot) })
	return snapshots, nil
}
