package api

import (
	"context"
	"errors"
	"strconv"
	"strings"
	"time"

	"github.com/gofiber/fiber/v2"

	"github.com/crownsdev/crowns/models"
	"github.com/crownsdev/crowns/models/legacy"
)

// Bounds of the history window: today plus that many previous days.
const (
	historyDaysMin = 0
	historyDaysMax = 365
	historyDaysDef = 7
)

// handleHistory answers GET /clan/:tag/history: the 4-hourly snapshots of
// a tracked clan.
func (s *Server) handleHistory(c *fiber.Ctx) error {
	return s.sendHistory(c, models.SnapshotFourHourly)
}

// handleWeeklyHistory answers GET /clan/:tag/history/weekly: the Monday
// 23:00 snapshots of a tracked clan with weekly collection.
func (s *Server) handleWeeklyHistory(c *fiber.Ctx) error {
	return s.sendHistory(c, models.SnapshotWeekly)
}

// sendHistory answers a history request of kind: today (UTC) and the
// requested number of previous days, as an object keyed by slot time.
//
// Answers, refusals of untracked clans included, are kept rendered per
// (clan, kind, days, day) until the clan changes (a snapshot lands, its
// tracking changes: see models.ClanChange) or HistoryCacheTTL passes.
// They are what the database says now, so they carry no x-cached header.
// Each keeps the fingerprint of the data it was read from: at the end of
// its TTL, when the database gives the same fingerprint, it is kept for
// another TTL without reading the history again.
func (s *Server) sendHistory(c *fiber.Ctx, kind models.SnapshotKind) error {
	tag, days, err := parseHistoryRequest(c)
	if err != nil {
		return err
	}
	now := s.requestNow(c)
	var buf [64]byte
	key := historyCacheKey(buf[:0], tag, kind, days, now)
	if answer, hit := s.cache.get(key, now); hit {
		s.metrics.cacheLookup(cacheHistory, true)
		return s.sendHistoryAnswer(c, answer, string(key))
	}
	tag = strings.Clone(tag)
	place := cachePlace{key: string(key), group: tag, ttl: s.cfg.HistoryCacheTTL}
	answer, hit, err := s.cache.fetchPlace(s.databaseCtx(c), now, place, s.cfg.DatabaseTimeout, func(ctx context.Context) (*cachedAnswer, error) {
		from, to := models.HistoryWindow(now, days)
		previous := s.cache.expired(place.key)
		if s.historyHolds(ctx, previous, tag, kind, from, to) {
			return previous, nil
		}
		// The fingerprint comes from the very query that reads the
		// history: a write that commits after it changes what the
		// database gives next, so this answer is read again at the end of
		// its TTL rather than kept.
		history, fingerprint, err := s.deps.History.FingerprintedClanHistory(ctx, tag, kind, from, to)
		switch {
		case errors.Is(err, models.ErrNotTracked), errors.Is(err, models.ErrWeeklyNotEnabled):
			return withFingerprint(refusalAnswer(err), fingerprint), nil
		case err != nil:
			return nil, err
		}
		// When the body read again is the one the answer had (its
		// fingerprint moved, not its content), the answer it was is kept,
		// compressed form and all.
		return withFingerprint(renewedAnswer(previous, legacy.ClanHistory(history).AppendJSON(nil)), fingerprint), nil
	})
	s.metrics.cacheLookup(cacheHistory, hit)
	if err != nil {
		return err
	}
	return s.sendHistoryAnswer(c, answer, place.key)
}

// historyHolds tells whether previous, a history answer whose TTL ended,
// is still what the database holds: the database gives the fingerprint
// it was read with. It costs one cheap query, against a full read and
// rendering. Without a previous answer or fingerprint, or when the query
// fails, it says no: the history is read as if it had not been asked,
// and a database that cannot answer fails that read as it would have.
func (s *Server) historyHolds(ctx context.Context, previous *cachedAnswer, tag string, kind models.SnapshotKind, from, to time.Time) bool {
	if previous == nil || previous.fingerprint == nil {
		return false
	}
	fingerprint, err := s.deps.History.ClanHistoryFingerprint(ctx, tag, kind, from, to)
	return err == nil && fingerprint == *previous.fingerprint
}

// sendHistoryAnswer sends a rendered history answer, or returns the
// refusal it stands for; key names it in the response cache.
func (s *Server) sendHistoryAnswer(c *fiber.Ctx, answer *cachedAnswer, key string) error {
	if answer.refusal != nil {
		return answer.refusal
	}
	return s.sendAnswer(c, answer, false, key)
}

// historyCacheKey names the cached history answer of a clan, schedule and
// window on now's day (UTC, in days since 1970): the window moves at
// midnight.
func historyCacheKey(dst []byte, tag string, kind models.SnapshotKind, days int, now time.Time) []byte {
	key := append(dst, "history/"...)
	key = append(key, tag...)
	key = strconv.AppendInt(append(key, '/'), int64(kind), 10)
	key = strconv.AppendInt(append(key, '/'), int64(days), 10)
	return strconv.AppendInt(append(key, '/'), now.Unix()/secondsPerDay, 10)
}

// secondsPerDay divides Unix time into UTC days.
const secondsPerDay = 24 * 60 * 60

// clanChanged drops the cached history answers of a changed clan (of
// every clan for models.ClanChange.All).
func (s *Server) clanChanged(change models.ClanChange) {
	if change.All {
		s.cache.dropAllGroups()
		return
	}
	s.cache.drop(change.Tag)
}

// parseHistoryRequest validates the tag and the days window of a history
// request.
func parseHistoryRequest(c *fiber.Ctx) (tag string, days int, err error) {
	if tag, err = transientPathTag(c, "tag"); err != nil {
		return "", 0, err
	}
	if days, _, err = queryInt(c, "days", historyDaysDef, historyDaysMin, historyDaysMax); err != nil {
		return "", 0, err
	}
	return tag, days, nil
}
