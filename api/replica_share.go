package api

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"time"

	"github.com/crownsdev/crowns/internal/outage"
)

// How replicas find each other for the per-key rate limit: each beats
// every ReplicaHeartbeatInterval, and one not heard of for
// ReplicaLiveWindow (three beats) no longer counts.
const (
	ReplicaHeartbeatInterval = 5 * time.Second
	ReplicaLiveWindow        = 15 * time.Second
	// replicaHeartbeatTimeout bounds one beat.
	replicaHeartbeatTimeout = 3 * time.Second
)

// ReplicaRegistry is where the API processes of a deployment say they are
// alive (the replicas table): ReplicaHeartbeat records id as alive at now
// and counts the processes seen at liveSince or later, itself included;
// ForgetReplica takes id out, as its process stops.
type ReplicaRegistry interface {
	ReplicaHeartbeat(ctx context.Context, id string, now, liveSince time.Time) (int, error)
	ForgetReplica(ctx context.Context, id string) error
}

// newReplicaID names this process in the registry.
func newReplicaID() string {
	b := make([]byte, 8)
	_, _ = rand.Read(b)
	return hex.EncodeToString(b)
}

// ShareRateLimit makes the per-key rate limit hold across replicas, until
// ctx ends: every ReplicaHeartbeatInterval it beats once (see Heartbeat),
// in the background, so a request never waits on the database for it.
// Failed beats are logged as package outage does: when they start, a
// reminder a minute, when they end.
//
// It assumes that a load balancer spreads each key's requests evenly over
// the replicas: each allows a key RateLimitPerSecond/N (and RateLimitBurst/N, at
// least one), N being the replicas alive. A key whose requests all reach
// one replica gets less than its rate; a replica that has just started is
// counted by the others within ReplicaHeartbeatInterval. When ctx ends the
// process takes itself out of the registry, so that one stopped cleanly
// (a restart) is no longer counted from the others' next beat; one that
// crashed is, for ReplicaLiveWindow.
func (s *Server) ShareRateLimit(ctx context.Context, replicas ReplicaRegistry) {
	ticker := time.NewTicker(ReplicaHeartbeatInterval)
	defer ticker.Stop()
	uncounted := outage.New(outage.Config{
		Logger:    s.log,
		Now:       s.clock.Now,
		Failing:   "cannot count the live replicas; the rate limit keeps its last share",
		Recovered: "counting the live replicas again",
	})
	for {
		uncounted.Outcome(ctx, s.Heartbeat(ctx, replicas))
		select {
		case <-ctx.Done():
			s.leaveRegistry(context.WithoutCancel(ctx), replicas)
			return
		case <-ticker.C:
		}
	}
}

// leaveRegistry takes this process out of the registry, within
// replicaHeartbeatTimeout; a failure is logged: the others stop counting
// it after ReplicaLiveWindow all the same.
func (s *Server) leaveRegistry(ctx context.Context, replicas ReplicaRegistry) {
	ctx, cancel := context.WithTimeout(ctx, replicaHeartbeatTimeout)
	defer cancel()
	if err := replicas.ForgetReplica(ctx, s.replicaID); err != nil {
		s.log.WarnContext(ctx, "cannot take this replica out of the rate limit's count; the others count it until it is stale", "error", err, "staleAfter", ReplicaLiveWindow)
	}
}

// Heartbeat says once, at the server clock's now, that this process is
// alive, and sizes each key's rate limit for the replicas counted alive;
// on failure the size stays as it was. ShareRateLimit calls it
// periodically.
func (s *Server) Heartbeat(ctx context.Context, replicas ReplicaRegistry) error {
	ctx, cancel := context.WithTimeout(ctx, replicaHeartbeatTimeout)
	defer cancel()
	now := s.clock.Now()
	live, err := replicas.ReplicaHeartbeat(ctx, s.replicaID, now, now.Add(-ReplicaLiveWindow))
	if err != nil {
		return err
	}
	s.limiter.share(live)
	return nil
}
