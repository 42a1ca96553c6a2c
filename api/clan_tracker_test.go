package api_test

import (
	"context"
	"errors"

	"github.com/crownsdev/crowns/models"
	"github.com/crownsdev/crowns/models/store"
)

// clanSource is the game API as gameTracker reads it.
type clanSource interface {
	Clan(ctx context.Context, tag string) (models.ClanDetails, error)
}

// gameTracker is the ClanTracker of the API's own tests, which never run
// another role (roles never import each other): a clan already tracked
// answers at once; otherwise it is read from the game API, refused when
// its description lacks the address, and tracked with that data as its
// first snapshot — the answers the API maps. The scheduler's tracker is
// tested against the same rules in its package, and runs behind the real
// API in cmd/crowns/endtoend.
type gameTracker struct {
	clans   *store.Store
	game    clanSource
	address string
	clock   models.Clock
}

func (g gameTracker) TrackClan(ctx context.Context, tag string, keyID int64) error {
	tracked, err := g.clans.TrackedClan(ctx, tag)
	switch {
	case err == nil && tracked.Active:
		return nil
	case err != nil && !errors.Is(err, models.ErrNotFound):
		return err
	}
	clan, err := g.game.Clan(ctx, tag)
	if err != nil {
		return err
	}
	if !models.DescriptionHasAddress(clan.Description, g.address) {
		return &models.AddressMissingError{Address: g.address}
	}
	_, err = g.clans.Track(ctx, models.TrackRequest{
		Tag: tag, Clan: clan, Legible: true, By: models.TrackedByKey, KeyID: keyID, Now: g.clock.Now(),
	})
	return err
}
