package scheduler

import (
	"context"

	"github.com/crownsdev/crowns/models"
)

// ClanSource is the game upstream as the scheduler uses it: a clan with
// its member list, or models.ErrNotFound, or an error wrapping
// models.ErrUnavailable when the upstream cannot answer now.
type ClanSource interface {
	Clan(ctx context.Context, tag string) (models.ClanDetails, error)
}
