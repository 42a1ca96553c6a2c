package store_test

import (
	"context"
	"strconv"
	"testing"
	"time"

	"github.com/crownsdev/crowns/models"
	"github.com/crownsdev/crowns/models/store"
	"github.com/crownsdev/crowns/models/store/storetest"
)

// BenchmarkAddKeyUsage is one flush of the usage of 10,000 keys, on
// SQLite: what the API's usage counting costs in the background every
// flush interval when that many keys are in use.
func BenchmarkAddKeyUsage(b *testing.B) {
	db := storetest.Open(b, store.DialectSQLite)
	// The rows' keys need not exist for the upserts to cost what they do.
	if err := db.Session(context.Background()).Exec("PRAGMA foreign_keys = OFF").Error; err != nil {
		b.Fatal(err)
	}
	hour := time.Date(2026, 11, 24, 14, 0, 0, 0, time.UTC)
	counts := map[models.KeyUsageCell]models.KeyUsageCount{}
	for k := range 10000 {
		counts[models.KeyUsageCell{KeyID: int64(k + 1), Hour: hour, Route: "/player/:tag/battles"}] = models.KeyUsageCount{Requests: 3}
	}
	batches := 0
	for b.Loop() {
		batches++
		batch := models.KeyUsageBatch{ID: strconv.Itoa(batches), At: hour, Counts: counts}
		if err := db.AddKeyUsage(context.Background(), batch); err != nil {
			b.Fatal(err)
		}
	}
}
