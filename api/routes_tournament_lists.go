package api

import (
	"github.com/gofiber/fiber/v2"

	"github.com/crownsdev/crowns/models"
	"github.com/crownsdev/crowns/models/legacy"
)

// tournamentList is one of the /tournaments/<name> lists: the predicate
// every element meets and the legacy shape of its elements.
type tournamentList struct {
	name   string
	holds  models.TournamentPredicate
	render func(records []models.TournamentRecord) any
}

// tournamentLists are the tournament lists of the contract.
func tournamentLists() []tournamentList {
	return []tournamentList{
		{name: "known", holds: models.TournamentKnown, render: renderAs(legacy.NewKnownTournament)},
		{name: "1k", holds: models.TournamentThousand, render: renderAs(legacy.NewThousandTournament)},
		{name: "full", holds: models.TournamentFull, render: renderAs(legacy.NewFullTournament)},
		{name: "open", holds: models.TournamentOpen, render: renderAs(legacy.NewKnownTournament)},
		{name: "inprep", holds: models.TournamentInPrep, render: renderAs(legacy.NewPreparingTournament)},
		{name: "joinable", holds: models.TournamentJoinable, render: renderAs(legacy.NewKnownTournament)},
	}
}

// tournamentListHandler answers GET /tournaments/<list> from the
// database: at most models.MaxTournamentListLength tournaments that meet
// the list's predicate and every active filter of the query, most
// recently updated first.
func (s *Server) tournamentListHandler(list tournamentList) fiber.Handler {
	return func(c *fiber.Ctx) error {
		filters, err := parseTournamentFilters(c)
		if err != nil {
			return err
		}
		predicates := append([]models.TournamentPredicate{list.holds}, filters...)
		records, err := s.deps.TournamentStore.ListTournaments(s.databaseCtx(c), predicates, models.MaxTournamentListLength)
		if err != nil {
			return err
		}
		return s.sendJSON(c, list.render(records))
	}
}

// parseTournamentFilters reads the filters 1k, open, full, inprep and
// joinable and returns the active ones: 1 activates a filter, 0 (or
// leaving it out) does not; any other value is invalid, and so is a
// filter given more than once with different values (open=0&open=1).
func parseTournamentFilters(c *fiber.Ctx) ([]models.TournamentPredicate, error) {
	var active []models.TournamentPredicate
	for _, p := range models.TournamentFilters() {
		raw, other := queryValues(c, string(p))
		switch {
		case raw == nil:
			continue
		case !isFilterValue(raw), other != nil && !isFilterValue(other):
			return nil, models.InvalidParam(string(p), "must be 0 or 1")
		case other != nil:
			return nil, errRepeatedParam(string(p))
		case string(raw) == "1":
			active = append(active, p)
		}
	}
	return active, nil
}

// isFilterValue tells whether a filter's value is one of its two, 0 and 1.
func isFilterValue(raw []byte) bool { return string(raw) == "0" || string(raw) == "1" }

// renderAs renders records each in the shape shape gives.
func renderAs[T any](shape func(models.TournamentRecord) T) func([]models.TournamentRecord) any {
	return func(records []models.TournamentRecord) any {
		out := make([]T, len(records))
		for i, r := range records {
			out[i] = shape(r)
		}
		return out
	}
}
