package keys_test

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/crownsdev/crowns/models/store"

	"github.com/crownsdev/crowns/keys"
	"github.com/crownsdev/crowns/models"
	"github.com/crownsdev/crowns/models/store/storetest"
)

// TestVerifySecretKeepsTheFirstSecret: the first secret's check value is
// recorded — never the secret in any encoding — and only that secret
// passes afterwards, also when processes race on an empty database.
func TestVerifySecretKeepsTheFirstSecret(t *testing.T) {
	first, other := bytes.Repeat([]byte{1}, 32), bytes.Repeat([]byte{2}, 32)
	now := time.Date(2026, 11, 2, 10, 0, 0, 0, time.UTC)
	storetest.EachEngine(t, func(t *testing.T, db *store.Store) {
		ctx := context.Background()
		results := make(chan error, 8)
		var wg sync.WaitGroup
		for i := range 8 {
			secret := first
			if i%2 == 1 {
				secret = other
			}
			wg.Add(1)
			go func() {
				defer wg.Done()
				results <- keys.VerifySecret(ctx, db, secret, now)
			}()
		}
		wg.Wait()
		close(results)
		var passed, refused int
		for err := range results {
			switch {
			case err == nil:
				passed++
			case errors.Is(err, keys.ErrSecretDiffers):
				refused++
			default:
				t.Fatal(err)
			}
		}
		if passed != 4 || refused != 4 {
			t.Fatalf("racing secrets: %d passed, %d refused; want one secret's 4 each way", passed, refused)
		}

		recorded, err := db.RecordSecretCheck(ctx, "ignored", now)
		if err != nil {
			t.Fatal(err)
		}
		if recorded != keys.SecretCheck(first) && recorded != keys.SecretCheck(other) {
			t.Fatalf("recorded %q, the check value of neither secret", recorded)
		}
		for _, secret := range [][]byte{first, other} {
			for _, encoded := range []string{base64.StdEncoding.EncodeToString(secret), hex.EncodeToString(secret)} {
				if strings.Contains(recorded, encoded) {
					t.Fatal("the database holds the secret")
				}
			}
		}
		winner, loser := first, other
		if recorded == keys.SecretCheck(other) {
			winner, loser = other, first
		}
		if err := keys.VerifySecret(ctx, db, winner, now); err != nil {
			t.Fatalf("the first secret again: %v", err)
		}
		if err := keys.VerifySecret(ctx, db, loser, now); !errors.Is(err, keys.ErrSecretDiffers) {
			t.Fatalf("another secret: %v, want ErrSecretDiffers", err)
		}
	})
}

// TestVerifySecretRefusesASecretThatDidNotSealTheStoredKeys: a database
// whose keys were issued before any check value was recorded (by a
// release that recorded none) takes only the secret that sealed them; a
// process with another secret is refused and records nothing, so the
// right secret still passes after it.
func TestVerifySecretRefusesASecretThatDidNotSealTheStoredKeys(t *testing.T) {
	other := bytes.Repeat([]byte{2}, 32)
	storetest.EachEngine(t, func(t *testing.T, db *store.Store) {
		ctx := context.Background()
		issued := issue(t, newService(t, db, models.NewManualClock(testStart)), "100")
		if err := keys.VerifySecret(ctx, db, other, testStart); !errors.Is(err, keys.ErrSecretDiffers) {
			t.Fatalf("a secret that sealed no stored key: %v, want ErrSecretDiffers", err)
		}
		if err := keys.VerifySecret(ctx, db, testSecret, testStart); err != nil {
			t.Fatalf("the secret that sealed the keys, after another was refused: %v", err)
		}
		if err := keys.VerifySecret(ctx, db, other, testStart); !errors.Is(err, keys.ErrSecretDiffers) {
			t.Fatalf("another secret once the check value is recorded: %v, want ErrSecretDiffers", err)
		}
		expectVerify(t, newService(t, db, models.NewManualClock(testStart)), issued.Key, nil, "100")
	})
}
