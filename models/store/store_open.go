package store

import (
	"context"
	"strings"
	"time"

	"gorm.io/gorm"

	"github.com/crownsdev/crowns/internal/backoff"
)

// openPatience bounds how long Open tries again while a SQLite file is
// locked. Opening a connection applies the file's settings, and switching
// a file to WAL needs a lock of the whole file: when other processes open
// the same file at the same moment (replicas starting together, a migrate
// beside a serve), SQLite can answer SQLITE_BUSY at once instead of
// waiting its busy_timeout. Longer than that timeout: opening is not
// bound by a request.
const openPatience = 10 * time.Second

// openRetry is the pause between tries of a locked SQLite file.
var openRetry = backoff.Policy{First: 5 * time.Millisecond, Max: 250 * time.Millisecond}

// openPatiently opens a database with open, trying again with a growing
// pause while the answer is that the SQLite file is locked, for at most
// openPatience or until ctx ends; a failed attempt's connections are
// closed.
func openPatiently(ctx context.Context, open func() (*gorm.DB, error)) (*gorm.DB, error) {
	deadline := time.Now().Add(openPatience)
	for failures := 1; ; failures++ {
		pause := openRetry.Delay(failures)
		db, err := open()
		if err == nil || !fileLocked(err) || !time.Now().Add(pause).Before(deadline) {
			return db, err
		}
		if db != nil {
			if sqlDB, dbErr := db.DB(); dbErr == nil {
				_ = sqlDB.Close()
			}
		}
		if !backoff.Wait(ctx, pause) {
			return nil, err
		}
	}
}

// fileLocked tells a SQLite "database is locked" answer.
func fileLocked(err error) bool {
	msg := err.Error()
	return strings.Contains(msg, "database is locked") || strings.Contains(msg, "SQLITE_BUSY")
}
