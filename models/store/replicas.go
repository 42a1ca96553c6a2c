package store

import (
	"context"
	"fmt"
	"time"

	"github.com/crownsdev/crowns/models"
)

// replicaForgetAfter is how long a replica that stopped heartbeating
// keeps its row: long past being counted, then deleted.
const replicaForgetAfter = time.Hour

// ReplicaHeartbeat records that the API process id is alive at now and
// returns how many processes (itself included) were seen at liveSince or
// later; rows of processes gone for long are deleted on the way. It costs
// three short statements, made every few seconds in the background,
// never per request. Times are kept in Unix milliseconds.
func (s *Store) ReplicaHeartbeat(ctx context.Context, id string, now, liveSince time.Time) (int, error) {
	db := s.session(models.AsBackground(ctx))
	err := db.Exec(`INSERT INTO replicas (id, last_seen) VALUES (?, ?)
		ON CONFLICT (id) DO UPDATE SET last_seen = excluded.last_seen`, id, now.UnixMilli()).Error
	if err != nil {
		return 0, fmt.Errorf("record replica heartbeat: %w", s.translate(err))
	}
	if err := db.Exec(`DELETE FROM replicas WHERE last_seen < ?`, now.Add(-replicaForgetAfter).UnixMilli()).Error; err != nil {
		return 0, fmt.Errorf("forget old replicas: %w", s.translate(err))
	}
	var live int
	if err := db.Raw(`SELECT COUNT(*) FROM replicas WHERE last_seen >= ? OR id = ?`, liveSince.UnixMilli(), id).Scan(&live).Error; err != nil {
		return 0, fmt.Errorf("count live replicas: %w", s.translate(err))
	}
	return live, nil
}

// ForgetReplica deletes the row of the API process id, which is stopping:
// the others stop counting it at their next heartbeat.
func (s *Store) ForgetReplica(ctx context.Context, id string) error {
	if err := s.session(ctx).Exec(`DELETE FROM replicas WHERE id = ?`, id).Error; err != nil {
		return fmt.Errorf("forget this replica: %w", s.translate(err))
	}
	return nil
}
