package keys

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/crownsdev/crowns/models"
)

// Identity is who a verified key belongs to.
type Identity struct {
	// KeyID is the verified key's row; DeveloperID its owner's row, and
	// DiscordUserID its owner's Discord user.
	KeyID         int64
	DeveloperID   int64
	DiscordUserID string
}

// Verify tells whose key raw is. Errors: models.ErrUnknownKey (unknown,
// replaced or revoked; ErrMalformedKey, which is one, when malformed), models.ErrKeyDisabled,
// models.ErrKeyBlacklisted (the key or its developer), or a
// models.UnavailableError when the database cannot answer.
//
// A malformed key is rejected before any database lookup; its full
// check (alphabet and checksum) and its lookup digest (an HMAC) are made
// only when the cache does not know the key. The cache names a key by an
// encryption of it (keyring.cacheID), one-to-one and cheaper than the
// HMAC, and holds well-formed keys only.
//
// Results, unknown keys included, are cached: changes made through this
// Service are seen at once; a change made by another process is seen at
// the next Sync, and within the configured TTL (at most 5 s) whatever
// happens, as a cached result is trusted longer than the TTL only while
// syncs succeed. A successful verification records the key's last use
// (to the second) in memory for the next Flush.
func (s *Service) Verify(ctx context.Context, raw string) (Identity, error) {
	return s.VerifyAt(ctx, raw, s.clock.Now())
}

// VerifyAt is Verify at a time read from the service's clock by the
// caller (the API reads it once per request).
func (s *Service) VerifyAt(ctx context.Context, raw string, at time.Time) (Identity, error) {
	id, identity, err := s.verifyCached(raw, at.UnixNano())
	if !errors.Is(err, ErrNotCached) {
		return identity, err
	}
	// Concurrent verifications of one key (its clients' first requests
	// after a start, or a known key's rechecks while the database fails)
	// share one lookup. A change to a key moves the cache's generation: a
	// verification that begins after one never joins a lookup that began
	// before it. Each caller waits at most until its own context ends.
	if err := ctx.Err(); err != nil {
		// No time left: no lookup for others to join and fail with.
		return Identity{}, models.Unavailable("database", models.DatabaseRetryAfter, err)
	}
	generation := s.cache.startLookup()
	flightKey := string(id[:]) + strconv.FormatUint(generation, 36)
	// The lookup may outlive this caller, and raw its request's memory.
	raw = strings.Clone(raw)
	shared := s.lookups.DoChan(flightKey, func() (any, error) {
		lookupCtx, cancel := sharedLookupContext(ctx)
		defer cancel()
		return s.lookupAndCache(lookupCtx, raw, id, at.UnixNano(), generation)
	})
	select {
	case result := <-shared:
		if result.Err != nil {
			return Identity{}, result.Err
		}
		v := result.Val.(verdict)
		return v.identity, v.err
	case <-ctx.Done():
		return Identity{}, models.Unavailable("database", models.DatabaseRetryAfter, ctx.Err())
	}
}

// sharedLookupContext is the context of a lookup shared by the callers
// that join the first, whose context is ctx: its values, but neither its
// cancellation nor its deadline, so that the first caller leaving or
// running out of time does not fail the others; each caller stops
// waiting when its own context ends, and the lookup itself when the
// contract's bound of any wait on the database has passed.
func sharedLookupContext(ctx context.Context) (context.Context, context.CancelFunc) {
	return context.WithTimeout(context.WithoutCancel(ctx), models.MaxDatabaseWait)
}

// lookupAndCache asks the database for the verdict on raw, whose cacheID
// is id, and caches it from now unless a change came after generation; a
// lookup that ended just before this one began has cached it already.
func (s *Service) lookupAndCache(ctx context.Context, raw string, id cacheID, now int64, generation uint64) (verdict, error) {
	if _, identity, err := s.verifyCached(raw, now); !errors.Is(err, ErrNotCached) {
		return verdict{identity: identity, err: err}, nil
	}
	lookup := s.ring.digest(raw)
	v, err := s.lookup(ctx, lookup)
	if err != nil {
		return verdict{}, err
	}
	if v.use != nil {
		v.use.record(now)
	}
	s.cache.put(&id, &lookup, v, now, generation)
	return v, nil
}

// ErrMalformedKey is the verdict on a key refused by its form alone
// (wrong length, prefix, alphabet or checksum), asking neither the cache
// nor the database: a models.ErrUnknownKey to every caller, which a
// caller counting where verdicts come from can tell apart.
var ErrMalformedKey = fmt.Errorf("%w: malformed", models.ErrUnknownKey)

// ErrNotCached is VerifyCached's answer for a key whose verdict only the
// database can give: VerifyAt asks it.
var ErrNotCached = errors.New("keys: no cached verdict")

// ErrVerdictExpired is VerifyCached's answer for a key that authenticated
// when last looked up, but so long ago that the verdict is no longer
// trusted (the key-event feed could not be read meanwhile): VerifyAt asks
// the database again. It is an ErrNotCached; a caller that bounds lookups
// to keep made-up keys from the database can tell a known key's recheck
// from them.
var ErrVerdictExpired = fmt.Errorf("%w: the verdict of a known key expired", ErrNotCached)

// VerifyCached is VerifyAt without the database: the verdict on raw when
// it is known in memory (the cached verdict, or ErrMalformedKey for a
// malformed key: wrong length, prefix, alphabet or checksum), else
// ErrNotCached. It does no
// I/O, so it needs no context: a caller that makes one per request makes
// it only when this says ErrNotCached.
func (s *Service) VerifyCached(raw string, at time.Time) (Identity, error) {
	_, identity, err := s.verifyCached(raw, at.UnixNano())
	return identity, err
}

// verifyCached is VerifyCached, with the key's cacheID for the lookup
// that follows ErrNotCached.
func (s *Service) verifyCached(raw string, now int64) (cacheID, Identity, error) {
	if !hasKeyShape(raw) {
		return cacheID{}, Identity{}, ErrMalformedKey
	}
	id := s.ring.cacheID(raw)
	v, trusted := s.cache.get(&id, now)
	switch {
	case trusted:
		v.noteUse(now)
		return id, v.identity, v.err
	case v != nil && v.err == nil:
		return id, Identity{}, ErrVerdictExpired
	}
	if CheckFormat(raw) != nil {
		return cacheID{}, Identity{}, ErrMalformedKey
	}
	return id, Identity{}, ErrNotCached
}

// lookup asks the database for the verdict on a digest.
func (s *Service) lookup(ctx context.Context, lookup digest) (verdict, error) {
	key, found, err := s.db.KeyStandingByDigest(ctx, lookup[:])
	if err != nil {
		return verdict{}, err
	}
	if !found {
		return verdict{err: models.ErrUnknownKey}, nil
	}
	switch {
	case key.State == models.KeyReplaced, key.State == models.KeyRevoked:
		return verdict{err: models.ErrUnknownKey}, nil
	case key.State == models.KeyBlacklisted, key.DeveloperBlacklisted && key.State.Current():
		return verdict{err: models.ErrKeyBlacklisted}, nil
	case key.State == models.KeyDisabled:
		return verdict{err: models.ErrKeyDisabled}, nil
	case key.State == models.KeyActive:
		return verdict{
			identity: Identity{KeyID: key.KeyID, DeveloperID: key.DeveloperID, DiscordUserID: key.DiscordUserID},
			use:      s.usage.track(key.KeyID),
		}, nil
	}
	return verdict{err: models.ErrUnknownKey}, nil
}
