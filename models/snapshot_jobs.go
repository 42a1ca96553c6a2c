package models

import (
	"errors"
	"time"
)

// States of a snapshot job.
const (
	// JobPending: waiting for its first try or its next retry (due_at).
	JobPending = "pending"
	// JobRunning: claimed by a scheduler until its lease ends (due_at).
	JobRunning = "running"
	// JobDone: the slot's snapshot is stored.
	JobDone = "done"
	// JobMissed: the slot's window ended without a snapshot; nothing was
	// stored for it.
	JobMissed = "missed"
)

// ErrLeaseLost: a scheduler finished a job whose lease it no longer held
// (it expired and another took the job over); its result is discarded.
var ErrLeaseLost = errors.New("snapshot job lease lost")

// SnapshotJob is a claimed snapshot job: fetch the clan, store its
// snapshot for the slot. Owner and Attempts fence the claim: only the
// holder of this exact claim can finish it.
type SnapshotJob struct {
	ClanID   int64
	Tag      string
	Kind     SnapshotKind
	Slot     time.Time
	Deadline time.Time
	Attempts int
	Owner    string
}

// SnapshotJobStatus is a job as stored, for operators and tests.
type SnapshotJobStatus struct {
	ClanID     int64
	Kind       SnapshotKind
	Slot       int64
	State      string
	Attempts   int
	DueAt      int64
	DeadlineAt int64
	LeaseOwner string
	LastError  string
}

// SlotNotPlannedReason is the last_error of a slot recorded missed because
// no scheduler ran during its window.
const SlotNotPlannedReason = "not planned: no scheduler ran during the slot's window"

// UnplannedSlot is a slot no scheduler planned, recorded missed for Clans
// clans.
type UnplannedSlot struct {
	Kind  SnapshotKind
	Slot  time.Time
	Clans int64
}

// MissedJob is a job whose window ended without a snapshot.
type MissedJob struct {
	ClanID    int64
	Tag       string
	Kind      SnapshotKind
	Slot      int64
	Attempts  int
	LastError string
}
