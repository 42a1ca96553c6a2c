package api

import (
	"context"
	"time"

	"github.com/crownsdev/crowns/models"
)

// trackingUnavailable stands in for clan tracking in a process that was
// built without it: no clan is tracked, and track requests are not
// implemented here.
type trackingUnavailable struct{}

func (trackingUnavailable) TrackClan(context.Context, string, int64) error {
	return models.ErrNotImplemented
}

func (trackingUnavailable) ClanHistory(context.Context, string, models.SnapshotKind, time.Time, time.Time) (models.ClanHistory, error) {
	return nil, models.ErrNotTracked
}

func (trackingUnavailable) TrackingStatus(_ context.Context, tag string) (models.ClanTracking, error) {
	return models.ClanTracking{Tag: tag}, nil
}
