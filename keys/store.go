package keys

import (
	"context"
	"time"

	"github.com/crownsdev/crowns/models"
)

// Store is what the key lifecycle needs of the database: its transitions,
// the lookup of a key by digest, last-use writes, the key-event outbox and
// the developer descriptions. *store.Store implements it; its errors are
// already translated to the sentinels of package models.
type Store interface {
	// KeyTransition runs fn in one serialised transaction, trying it
	// again on a unique violation.
	KeyTransition(ctx context.Context, fn func(tx models.KeyTransaction) error) error
	// KeyStandingByDigest tells the state of the key with this digest
	// and of its owner.
	KeyStandingByDigest(ctx context.Context, digest []byte) (models.KeyStanding, bool, error)
	// MarkKeysUsed stores the latest use of each key, never moving back.
	MarkKeysUsed(ctx context.Context, uses map[int64]time.Time) error
	// KeyEventsAfter and LastKeyEventID read the key-event outbox.
	KeyEventsAfter(ctx context.Context, afterID int64, limit int) ([]models.KeyEvent, error)
	LastKeyEventID(ctx context.Context) (int64, error)
	// KeyDigestsOfDevelopers returns the digests of every key of these
	// developers.
	KeyDigestsOfDevelopers(ctx context.Context, developerIDs []int64) ([][]byte, error)
	// DeveloperInfo, DeveloperInfos and DevelopersWithActiveKeys describe
	// developers, never a key.
	DeveloperInfo(ctx context.Context, discordUserID string) (models.DeveloperInfo, error)
	DeveloperInfos(ctx context.Context) ([]models.DeveloperInfo, error)
	DevelopersWithActiveKeys(ctx context.Context) ([]string, error)
	// AddKeyUsage adds a batch's counts to the stored usage of their
	// hours, so that replicas' counts sum, at most once: a batch whose id
	// is recorded already is not added again. DeleteKeyUsageBefore drops
	// usage older than a time, DeleteKeyUsageBatchesBefore the ids of
	// batches first tried before a time.
	AddKeyUsage(ctx context.Context, batch models.KeyUsageBatch) error
	DeleteKeyUsageBefore(ctx context.Context, before time.Time) (int64, error)
	DeleteKeyUsageBatchesBefore(ctx context.Context, before time.Time) (int64, error)
	// KeyUsageReport, TopKeyUsage and KeyUsageWindows read the stored
	// usage.
	KeyUsageReport(ctx context.Context, keyID int64, since time.Time) (models.KeyUsageReport, error)
	TopKeyUsage(ctx context.Context, since time.Time, limit int) ([]models.KeyUsageTotal, error)
	KeyUsageWindows(ctx context.Context, since, recentFrom time.Time) ([]models.KeyUsageWindows, error)
	// ClaimUsageAlert and ReleaseUsageAlert keep when each key's usage
	// alert was posted, for its cool-down.
	ClaimUsageAlert(ctx context.Context, keyID int64, at, quietSince time.Time) (bool, error)
	ReleaseUsageAlert(ctx context.Context, keyID int64, at time.Time) error
	// StoredReasonsContaining reads the stored reasons (of key states,
	// key events and blacklistings) that hold text; RewriteStoredReason
	// replaces one, only while it still reads as it was read, and reports
	// whether it did.
	StoredReasonsContaining(ctx context.Context, text string) ([]models.StoredReason, error)
	RewriteStoredReason(ctx context.Context, reason models.StoredReason, text string) (bool, error)
}
