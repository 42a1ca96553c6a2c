package scheduler

import (
	"cmp"
	"context"
	"errors"
	"log/slog"
	"strings"

	"github.com/crownsdev/crowns/models"
)

// TrackerConfig tunes a Tracker.
type TrackerConfig struct {
	// TrackAddress is the address a clan description must contain for a
	// developer's track request to succeed.
	TrackAddress string
	// Clock tells the time (nil: the system clock); Logger receives the
	// tracker's logs (nil: discarded).
	Clock  models.Clock
	Logger *slog.Logger
}

// Tracker starts tracking clans: on a developer's request after checking
// the clan's description for the tracking address, or on the operator's
// say-so. Either way the clan is fetched once and that data is the
// snapshot of the current 4-hourly slot.
type Tracker struct {
	clans   TrackingStore
	source  ClanSource
	address string
	clock   models.Clock
	log     *slog.Logger
}

// NewTracker builds a Tracker that stores through clans and fetches from
// source.
func NewTracker(clans TrackingStore, source ClanSource, cfg TrackerConfig) (*Tracker, error) {
	if clans == nil || source == nil {
		return nil, errors.New("tracker: a clan store and a clan source are required")
	}
	if strings.TrimSpace(cfg.TrackAddress) == "" {
		return nil, errors.New("tracker: TrackAddress is required")
	}
	cfg.Clock = cmp.Or[models.Clock](cfg.Clock, models.SystemClock{})
	cfg.Logger = cmp.Or(cfg.Logger, slog.New(slog.DiscardHandler))
	return &Tracker{clans: clans, source: source, address: cfg.TrackAddress, clock: cfg.Clock,
		log: cfg.Logger.With("component", "tracker")}, nil
}

// TrackClan answers a developer key's track request for a normalized tag.
// A clan already tracked answers at once without asking the upstream.
// Otherwise the clan is fetched: models.ErrNotFound when the upstream
// does not know it, an unavailable error when the upstream cannot answer,
// an AddressMissingError when its description lacks the tracking address.
// On success the clan is tracked, recorded as asked by keyID, and the
// fetched data is stored as the current slot's snapshot.
func (t *Tracker) TrackClan(ctx context.Context, tag string, keyID int64) error {
	tracked, err := t.alreadyTracked(ctx, tag)
	if err != nil || tracked != nil {
		return err
	}
	clan, err := t.source.Clan(ctx, tag)
	if err != nil {
		return err
	}
	if !models.DescriptionHasAddress(clan.Description, t.address) {
		t.log.Info("track request refused: address missing from the clan description", "clan", tag, "keyId", keyID)
		return &models.AddressMissingError{Address: t.address}
	}
	result, err := t.clans.Track(ctx, models.TrackRequest{
		Tag: tag, Clan: clan, Legible: true, By: models.TrackedByKey, KeyID: keyID, Now: t.clock.Now(),
	})
	if err != nil {
		return err
	}
	t.log.Info("clan tracked", "clan", tag, "keyId", keyID, "alreadyTracked", result.AlreadyTracked,
		"snapshotStored", result.SnapshotStored)
	return nil
}

// TrackAsOperator starts tracking a clan on the operator's say-so, without
// the address check (recorded as an override); the clan must exist
// upstream. An already tracked clan is left as it is.
func (t *Tracker) TrackAsOperator(ctx context.Context, tag string) (models.TrackResult, error) {
	tracked, err := t.alreadyTracked(ctx, tag)
	if err != nil {
		return models.TrackResult{}, err
	}
	if tracked != nil {
		return models.TrackResult{Clan: *tracked, AlreadyTracked: true}, nil
	}
	clan, err := t.source.Clan(ctx, tag)
	if err != nil {
		return models.TrackResult{}, err
	}
	result, err := t.clans.Track(ctx, models.TrackRequest{
		Tag: tag, Clan: clan, Legible: models.DescriptionHasAddress(clan.Description, t.address), By: models.TrackedByOperator, Now: t.clock.Now(),
	})
	if err != nil {
		return models.TrackResult{}, err
	}
	t.log.Info("clan tracked by the operator", "clan", tag, "legible", result.Clan.Legible,
		"alreadyTracked", result.AlreadyTracked, "snapshotStored", result.SnapshotStored)
	return result, nil
}

// alreadyTracked returns the clan's row when it is tracked now, nil when
// it is not (never tracked, or untracked).
func (t *Tracker) alreadyTracked(ctx context.Context, tag string) (*models.TrackedClan, error) {
	clan, err := t.clans.TrackedClan(ctx, tag)
	switch {
	case errors.Is(err, models.ErrNotFound):
		return nil, nil
	case err != nil:
		return nil, err
	case !clan.Active:
		return nil, nil
	}
	return &clan, nil
}
