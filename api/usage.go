package api

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"time"

	"github.com/gofiber/fiber/v2"

	"github.com/crownsdev/crowns/models"
)

// UsageCounter counts every answered request of an authenticated key:
// the route pattern (a string bound at registration, so counting
// allocates nothing), the status (429 counts as rate-limited) and the
// request's time. It must not block; *keys.Service implements it.
type UsageCounter interface {
	Count(keyID int64, route string, status int, at time.Time)
}

// UsageReports reads a key's stored usage over the last days UTC days at
// now (models.ErrNotFound for an unknown key); *keys.Service implements
// it.
type UsageReports interface {
	KeyUsage(ctx context.Context, keyID int64, days int, now time.Time) (models.KeyUsageReport, error)
}

// statsDays is the period of GET /auth/stats: the last 30 UTC days, today
// included.
const statsDays = 30

// statsDayLayout names a day of GET /auth/stats.
const statsDayLayout = "2006-01-02"

// KeyStats is the body of GET /auth/stats (docs/api.md, Key usage): the
// calling key's id (its number in the database, never the key), creation
// and latest use as of the last flush (Unix seconds; null when never
// used), and its requests and rate-limited requests per UTC day and its
// requests per route pattern over the last 30 UTC days.
type KeyStats struct {
	ID           int64            `json:"id"`
	CreatedAt    int64            `json:"createdAt"`
	LastRequest  *int64           `json:"lastRequest"`
	RequestCount map[string]int64 `json:"requestCount"`
	RateLimited  map[string]int64 `json:"rateLimited"`
	Routes       map[string]int64 `json:"routes"`
}

// NewKeyStats renders a usage report as GET /auth/stats answers it.
func NewKeyStats(r models.KeyUsageReport) KeyStats {
	stats := KeyStats{
		ID: r.KeyID, CreatedAt: r.KeyCreatedAt.Unix(),
		RequestCount: make(map[string]int64, len(r.Days)), RateLimited: make(map[string]int64, len(r.Days)),
		Routes: make(map[string]int64, len(r.Routes)),
	}
	if r.LastUsedAt != nil {
		last := r.LastUsedAt.Unix()
		stats.LastRequest = &last
	}
	for _, d := range r.Days {
		day := d.Day.UTC().Format(statsDayLayout)
		stats.RequestCount[day] = d.Requests
		stats.RateLimited[day] = d.RateLimited
	}
	for route, n := range r.Routes {
		stats.Routes[route] = n
	}
	return stats
}

// statsCacheTTL is how long a key's GET /auth/stats answer is reused: the
// route costs no rate-limit token, so this bounds what one key can make
// the database do (three queries) to one round every few seconds, about
// the freshness the usage flush gives anyway.
const statsCacheTTL = 5 * time.Second

// handleAuthStats answers GET /auth/stats: the calling key's usage, read
// from the database at most once every statsCacheTTL.
func (s *Server) handleAuthStats(c *fiber.Ctx) error {
	identity, ok := identityOf(c)
	if !ok {
		return errors.New("stats request without a verified identity")
	}
	now := s.requestNow(c)
	// The UTC day is part of the key: the 30 days shown move at midnight,
	// so an answer of the day before is never reused after it.
	place := cachePlace{key: "auth/stats/" + strconv.FormatInt(identity.KeyID, 10) + "/" + now.UTC().Format(statsDayLayout), ttl: statsCacheTTL}
	if answer, hit := s.cache.getString(place.key, now); hit {
		s.metrics.cacheLookup(cacheKeyStats, true)
		return s.sendAnswer(c, answer, true, place.key)
	}
	answer, hit, err := s.cache.fetchPlace(s.databaseCtx(c), now, place, s.cfg.DatabaseTimeout, func(ctx context.Context) (*cachedAnswer, error) {
		report, err := s.deps.UsageReports.KeyUsage(ctx, identity.KeyID, statsDays, now)
		if err != nil {
			return nil, err
		}
		body, err := json.Marshal(NewKeyStats(report))
		if err != nil {
			return nil, fmt.Errorf("encode key stats: %w", err)
		}
		return newCachedAnswer(body), nil
	})
	s.metrics.cacheLookup(cacheKeyStats, hit)
	if err != nil {
		return err
	}
	return s.sendAnswer(c, answer, hit, place.key)
}

// countUsage counts an authenticated request's answer for its key.
func (s *Server) countUsage(c *fiber.Ctx, st *requestState, status int) {
	if s.deps.Usage != nil && st.authenticated {
		s.deps.Usage.Count(st.identity.KeyID, st.pattern, status, s.requestNow(c))
	}
}
