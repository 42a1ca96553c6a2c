package store_test

import (
	"bytes"
	"context"
	"testing"
	"time"

	"github.com/crownsdev/crowns/models/store"

	"github.com/crownsdev/crowns/models"
	"github.com/crownsdev/crowns/models/store/storetest"
)

// TestADatabaseHoldingKeysHasBeenUsedWithASecret: a database is used with
// a secret once it records a check value, or once it holds a key (sealed
// under one, by a release that recorded no check value); the newest key
// is the one a secret is tried on.
func TestADatabaseHoldingKeysHasBeenUsedWithASecret(t *testing.T) {
	at := time.Date(2025, 3, 1, 12, 0, 0, 0, time.UTC)
	storetest.EachEngine(t, func(t *testing.T, db *store.Store) {
		ctx := context.Background()
		expectRecorded := func(want bool, when string) {
			t.Helper()
			recorded, err := db.SecretRecorded(ctx)
			if err != nil || recorded != want {
				t.Fatalf("%s: SecretRecorded = %v, %v; want %v", when, recorded, err, want)
			}
		}
		expectRecorded(false, "empty database")
		if _, _, found, err := db.LatestSealedKey(ctx); found || err != nil {
			t.Fatalf("empty database: LatestSealedKey found %v, %v", found, err)
		}
		insertDeveloperWithKeys(t, db, "100", at, models.KeyReplaced, models.KeyActive)
		expectRecorded(true, "keys stored, no check value")
		digest, sealed, found, err := db.LatestSealedKey(ctx)
		if err != nil || !found || !bytes.Equal(digest, []byte("digest-100-1")) || !bytes.Equal(sealed, []byte("sealed")) {
			t.Fatalf("LatestSealedKey = %q, %q, %v, %v; want the newest key", digest, sealed, found, err)
		}
	})
}
