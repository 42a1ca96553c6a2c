package api

import (
	"github.com/gofiber/fiber/v2"

	"github.com/crownsdev/crowns/models"
)

// tournamentList is one of the /tournaments/<name> lists: the predicate
// every element meets (none for known) and the legacy shape of its
// elements.
type tournamentList struct {
	name   string
	holds  []models.TournamentPredicate
	render func(records []models.TournamentRecord) any
}

// tournamentLists are the tournament lists of the contract.
func tournamentLists() []tournamentList {
	return []tournamentList{
		{name: "known", render: knownTournaments},
		{name: "1k", holds: []models.TournamentPredicate{models.TournamentThousand}, render: tournamentListItems},
		{name: "full", holds: []models.TournamentPredicate{models.TournamentFull}, render: tournamentListItems},
		{name: "open", holds: []models.TournamentPredicate{models.TournamentOpen}, render: knownTournaments},
		{name: "inprep", holds: []models.TournamentPredicate{models.TournamentInPrep}, render: tournamentListItems},
		{name: "joinable", holds: []models.TournamentPredicate{models.TournamentJoinable}, render: tournamentListItems},
	}
}

// tournamentListHandler answers GET /tournaments/<list> from the
// database: at most models.MaxTournamentListLength tournaments that meet
// the list's predicate and every filter of the query, most recently
// updated first.
func (s *Server) tournamentListHandler(list tournamentList) fiber.Handler {
	return func(c *fiber.Ctx) error {
		filters, err := parseTournamentFilters(c)
		if err != nil {
			return err
		}
		conditions := make([]models.TournamentCondition, 0, len(list.holds)+len(filters))
		for _, p := range list.holds {
			conditions = append(conditions, models.TournamentCondition{Predicate: p, Holds: true})
		}
		records, err := s.deps.TournamentStore.ListTournaments(s.requestCtx(c), append(conditions, filters...), models.MaxTournamentListLength)
		if err != nil {
			return err
		}
		return s.sendJSON(c, list.render(records))
	}
}

// parseTournamentFilters reads the filters 1k, open, full, inprep and
// joinable: 1 asks that the predicate hold, 0 that it not hold.
func parseTournamentFilters(c *fiber.Ctx) ([]models.TournamentCondition, error) {
	var filters []models.TournamentCondition
	for _, p := range models.TournamentPredicates() {
		raw, given := queryValue(c, string(p))
		switch {
		case !given:
		case raw == "1", raw == "0":
			filters = append(filters, models.TournamentCondition{Predicate: p, Holds: raw == "1"})
		default:
			return nil, models.InvalidParam(string(p), "must be 0 or 1")
		}
	}
	return filters, nil
}

// knownTournaments renders records in the shape of the known and open
// lists.
func knownTournaments(records []models.TournamentRecord) any {
	out := make([]models.KnownTournament, len(records))
	for i, r := range records {
		out[i] = r.Known()
	}
	return out
}

// tournamentListItems renders records in the shape of the 1k, full,
// inprep and joinable lists.
func tournamentListItems(records []models.TournamentRecord) any {
	out := make([]models.TournamentListItem, len(records))
	for i, r := range records {
		out[i] = r.ListItem()
	}
	return out
}
