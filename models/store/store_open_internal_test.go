package store

import (
	"context"
	"errors"
	"testing"

	"gorm.io/gorm"
)

// TestOpenPatientlyTriesALockedFileAgain: a locked file is tried again
// until it opens; any other failure, or the end of ctx, ends the tries.
func TestOpenPatientlyTriesALockedFileAgain(t *testing.T) {
	locked := errors.New("open: database is locked (5) (SQLITE_BUSY)")
	opened := &gorm.DB{}
	tries := 0
	db, err := openPatiently(context.Background(), func() (*gorm.DB, error) {
		tries++
		if tries < 3 {
			return nil, locked
		}
		return opened, nil
	})
	if err != nil || db != opened || tries != 3 {
		t.Fatalf("after %d tries: %v, %v; want the third to open", tries, db, err)
	}

	other := errors.New("permission denied")
	tries = 0
	if _, err := openPatiently(context.Background(), func() (*gorm.DB, error) { tries++; return nil, other }); !errors.Is(err, other) || tries != 1 {
		t.Fatalf("another failure: %v after %d tries, want it at once", err, tries)
	}

	ctx, cancel := context.WithCancel(context.Background())
	tries = 0
	if _, err := openPatiently(ctx, func() (*gorm.DB, error) {
		tries++
		cancel()
		return nil, locked
	}); !errors.Is(err, locked) || tries != 1 {
		t.Fatalf("a locked file after ctx ended: %v after %d tries, want the lock error at once", err, tries)
	}
}
