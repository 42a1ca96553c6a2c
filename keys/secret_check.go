package keys

import (
	"context"
	"crypto/hmac"
	"encoding/hex"
	"errors"
	"time"
)

// secretCheckLabel is what the check value of a secret is the
// HMAC-SHA256 of. It derives nothing used elsewhere, so the recorded value
// tells whether two secrets are equal and nothing more.
const secretCheckLabel = "crowns secret check v1"

// ErrSecretDiffers is returned when the secret of this process is not the
// one the database was first used with: keys issued by one would be
// unknown to the other, and stored keys could not be decrypted.
var ErrSecretDiffers = errors.New("CROWNS_SECRET differs from the secret this database was first used with: " +
	"set the same CROWNS_SECRET on every host and container of this deployment")

// SecretCheckStore records the check value of the deployment's secret.
// RecordSecretCheck stores check when none is recorded yet and returns the
// recorded value; LatestSealedKey returns the lookup digest and ciphertext
// of the newest stored key, if there is one.
type SecretCheckStore interface {
	RecordSecretCheck(ctx context.Context, check string, at time.Time) (string, error)
	LatestSealedKey(ctx context.Context) (digest, sealed []byte, found bool, err error)
}

// SecretCheck is the check value of secret that the database records:
// hex of HMAC-SHA256(secret, "crowns secret check v1"), never the secret.
func SecretCheck(secret []byte) string {
	return hex.EncodeToString(deriveSubKey(secret, secretCheckLabel))
}

// VerifySecret records secret's check value in store on first use, and
// answers ErrSecretDiffers when the database was first used with another
// secret: one whose check value is recorded, or one that sealed the keys
// stored (a database first used by a release that recorded no check
// value holds keys without it, and the first secret to come would
// otherwise be recorded, right or wrong).
func VerifySecret(ctx context.Context, db SecretCheckStore, secret []byte, now time.Time) error {
	if err := opensStoredKey(ctx, db, secret); err != nil {
		return err
	}
	check := SecretCheck(secret)
	recorded, err := db.RecordSecretCheck(ctx, check, now)
	if err != nil {
		return err
	}
	if !hmac.Equal([]byte(recorded), []byte(check)) {
		return ErrSecretDiffers
	}
	return nil
}

// opensStoredKey answers ErrSecretDiffers when the database holds a key
// that secret did not seal.
func opensStoredKey(ctx context.Context, db SecretCheckStore, secret []byte) error {
	storedDigest, sealed, found, err := db.LatestSealedKey(ctx)
	if err != nil || !found {
		return err
	}
	ring, err := newKeyring(secret)
	if err != nil {
		return err
	}
	var lookup digest
	if copy(lookup[:], storedDigest) != len(lookup) {
		return ErrSecretDiffers
	}
	if _, err := ring.open(sealed, lookup); err != nil {
		return ErrSecretDiffers
	}
	return nil
}
