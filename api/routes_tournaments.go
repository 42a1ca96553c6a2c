package api

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/gofiber/fiber/v2"
	"golang.org/x/sync/errgroup"

	"github.com/crownsdev/crowns/models"
	"github.com/crownsdev/crowns/models/legacy"
)

// Bounds of GET /tournament/:tags.
const (
	// maxTournamentTags is the most tags one request may list.
	maxTournamentTags = 10
	// tournamentLookupConcurrency bounds one request's upstream lookups in
	// flight.
	tournamentLookupConcurrency = 4
)

// TournamentSource looks a tournament up in the game upstream, with its
// members: models.ErrNotFound for a tag the upstream does not know.
type TournamentSource interface {
	Tournament(ctx context.Context, tag string) (models.TournamentDetails, error)
}

// TournamentStore keeps the tournaments looked up, marked as requested
// (the known list), and answers the lists.
type TournamentStore interface {
	SaveRequestedTournament(ctx context.Context, tournament models.TournamentDetails, seenAt time.Time) error
	ListTournaments(ctx context.Context, predicates []models.TournamentPredicate, limit int) ([]models.TournamentRecord, error)
}

// tournamentsSwitch answers 501 on every tournament route while
// tournaments are switched off.
func (s *Server) tournamentsSwitch(c *fiber.Ctx) error {
	if !s.cfg.Tournaments {
		return models.ErrNotImplemented
	}
	return c.Next()
}

// handleTournaments answers GET /tournament/:tags and its alias GET
// /tournaments/:tags (which legacy clients call). One tag answers the
// tournament, or 404. Several (comma-separated, at most
// maxTournamentTags) answer an array of the tournaments found, in the
// order asked, each once; 404 when none is found. Each tag is looked up
// upstream through the response cache, a few at a time, and every
// tournament looked up is stored for the lists, marked as requested.
func (s *Server) handleTournaments(c *fiber.Ctx) error {
	tags, several, err := parseTournamentTags(strings.Clone(c.Params("tags")))
	if err != nil {
		return err
	}
	answers := make([]*cachedAnswer, len(tags))
	hits := make([]bool, len(tags))
	group, ctx := errgroup.WithContext(s.requestCtx(c))
	group.SetLimit(tournamentLookupConcurrency)
	gameCall := s.gameCallOf(c, s.requestNow(c))
	for i, tag := range tags {
		group.Go(func() error {
			answer, hit, err := s.tournamentAnswer(ctx, tag, gameCall)
			if errors.Is(err, models.ErrNotFound) {
				return nil
			}
			answers[i], hits[i] = answer, hit
			return err
		})
	}
	if err := group.Wait(); err != nil {
		return err
	}
	if !several {
		if answers[0] == nil {
			return models.ErrNotFound
		}
		return s.sendAnswer(c, answers[0], hits[0], tournamentCacheKey(tags[0]))
	}
	list, allHits, found, err := s.joinTournamentAnswers(answers, hits)
	switch {
	case err != nil:
		return err
	case !found:
		return models.ErrNotFound
	}
	return s.sendAnswer(c, list, allHits, "")
}

// parseTournamentTags reads the comma-separated tags of the path (a comma
// escaped as %2C is part of a tag, as URLs have it, not a separator):
// normalized, duplicates dropped (first mention kept). several tells
// whether more than one tag was written, which asks for an array.
func parseTournamentTags(raw string) (tags []string, several bool, err error) {
	parts := strings.Split(raw, ",")
	if len(parts) > maxTournamentTags {
		return nil, false, models.InvalidParam("tags", fmt.Sprintf("at most %d tags", maxTournamentTags))
	}
	seen := make(map[string]bool, len(parts))
	for _, part := range parts {
		part = decodedPathSegment(part)
		tag, err := models.NormalizeURLTag(part)
		if err != nil {
			return nil, false, namingTag(part, err)
		}
		if !seen[tag] {
			seen[tag] = true
			tags = append(tags, tag)
		}
	}
	return tags, len(parts) > 1, nil
}

// namingTag words the problem of one tag of a list so that the caller sees
// which: the message of models.NormalizeURLTag, followed by the tag
// (percent-decoded) when the message does not quote it already.
func namingTag(written string, err error) error {
	var invalid *models.ValidationError
	if !errors.As(err, &invalid) || strings.Contains(invalid.Message, "'") {
		return err
	}
	return models.Invalid("%s: '%s'", invalid.Message, written)
}

// tournamentAnswer is the rendered tournament of tag, from the response
// cache or looked up upstream (once for concurrent callers) and stored.
// A failure to store is logged, and the write tried again in the
// background (see tournamentSaves): the caller still gets the tournament.
// gameCall is asked before the game API is.
func (s *Server) tournamentAnswer(ctx context.Context, tag string, gameCall func() error) (answer *cachedAnswer, hit bool, err error) {
	defer func() { s.metrics.cacheLookup(cacheTournament, hit) }()
	return s.cache.fetch(ctx, s.clock.Now(), tournamentCacheKey(tag), s.cfg.RequestTimeout, gameCall, func(ctx context.Context) (*cachedAnswer, error) {
		details, err := s.deps.TournamentSource.Tournament(ctx, tag)
		if err != nil {
			return nil, err
		}
		seenAt := s.clock.Now()
		saveCtx, cancel := context.WithTimeout(ctx, s.cfg.DatabaseTimeout)
		err = s.deps.TournamentStore.SaveRequestedTournament(saveCtx, details, seenAt)
		cancel()
		if err != nil {
			retried := s.tournamentSaves.retry(details, seenAt, err)
			s.log.WarnContext(ctx, "could not store a looked-up tournament", "tag", tag, "triedAgainLater", retried, "error", err)
		}
		body, err := json.Marshal(legacy.NewTournament(details))
		if err != nil {
			return nil, fmt.Errorf("encode tournament: %w", err)
		}
		return newCachedAnswer(body), nil
	})
}

// joinTournamentAnswers renders the found tournaments (nil answers are
// tags not found) as one JSON array, inflating those kept compressed
// only. allHits tells whether every one came from the cache; found
// whether there was any.
func (s *Server) joinTournamentAnswers(answers []*cachedAnswer, hits []bool) (list *cachedAnswer, allHits, found bool, err error) {
	var body bytes.Buffer
	body.WriteByte('[')
	allHits = true
	for i, answer := range answers {
		if answer == nil {
			continue
		}
		if found {
			body.WriteByte(',')
		}
		plain, err := s.inflaters.plainBody(answer)
		if err != nil {
			return nil, false, false, err
		}
		body.Write(plain)
		found, allHits = true, allHits && hits[i]
	}
	body.WriteByte(']')
	return newCachedAnswer(body.Bytes()), allHits, found, nil
}

// tournamentCacheKey names the cached answer of a looked-up tournament.
func tournamentCacheKey(tag string) string { return "tournament/" + tag }
