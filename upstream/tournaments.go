package upstream

import (
	"context"
	"net/url"
	"strconv"

	"github.com/crownsdev/crowns/models"
	"github.com/crownsdev/crowns/upstream/official"
)

// invalidTournamentSearchMessage is the caller-safe text of a tournament
// search the game API rejects.
const invalidTournamentSearchMessage = "invalid tournament search: the game API rejected the name or limit"

// Tournament returns a tournament with its members (GET /tournaments/%23TAG).
func (c *Client) Tournament(ctx context.Context, tag string) (models.TournamentDetails, error) {
	var t official.Tournament
	if err := c.get(ctx, request{path: "/tournaments/" + tagPath(tag), endpoint: endpointTournament, answers: sameTag(tag, &t.Tag)}, &t); err != nil {
		return models.TournamentDetails{}, err
	}
	details := tournamentHeader(t.TournamentHeader)
	details.StartedTime, _ = official.ParseTime(t.StartedTime)
	details.EndedTime, _ = official.ParseTime(t.EndedTime)
	details.EndedTimeRaw = t.EndedTime
	details.Members = make([]models.TournamentMember, 0, len(t.MembersList))
	for _, m := range t.MembersList {
		details.Members = append(details.Members, models.TournamentMember{Tag: bareTag(m.Tag), Name: m.Name, Score: m.Score, Rank: m.Rank})
	}
	return details, nil
}

// SearchTournaments lists tournaments whose name contains name (GET
// /tournaments?name=), without members; limit 0 leaves the upstream's
// default.
func (c *Client) SearchTournaments(ctx context.Context, name string, limit int) ([]models.TournamentDetails, error) {
	params := url.Values{"name": {name}}
	if limit > 0 {
		params.Set("limit", strconv.Itoa(limit))
	}
	var list official.List[official.TournamentHeader]
	if err := c.get(ctx, request{path: "/tournaments", query: params, invalid: invalidTournamentSearchMessage, endpoint: endpointTournaments, answers: listed(&list.Items)}, &list); err != nil {
		return nil, err
	}
	out := make([]models.TournamentDetails, 0, len(list.Items))
	for _, h := range list.Items {
		out = append(out, tournamentHeader(h))
	}
	return out, nil
}

func tournamentHeader(h official.TournamentHeader) models.TournamentDetails {
	created, _ := official.ParseTime(h.CreatedTime)
	return models.TournamentDetails{
		Tag:                 bareTag(h.Tag),
		Type:                tournamentTypeOf(h.Type),
		Status:              tournamentStatusOf(h.Status),
		Name:                h.Name,
		Description:         h.Description,
		CreatorTag:          bareTag(h.CreatorTag),
		Capacity:            h.Capacity,
		MaxCapacity:         h.MaxCapacity,
		PreparationDuration: h.PreparationDuration,
		Duration:            h.Duration,
		CreatedTime:         created,
	}
}

// tournamentTypeOf spells a tournament type in camelCase ("open",
// "passwordProtected"), whatever the upstream's casing; any other type
// (the game's UNKNOWN, or one it added since) is "unknown", so that
// clients only ever see the types Crowns documents.
func tournamentTypeOf(upstream string) string {
	return respellOr(models.TournamentTypeUnknown, upstream, models.TournamentTypeOpen, models.TournamentTypePasswordProtected)
}

// tournamentStatusOf spells a tournament status in camelCase
// ("inPreparation", "inProgress", "ended"); any other status (the game's
// UNKNOWN, or one it added since) is "unknown".
func tournamentStatusOf(upstream string) string {
	return respellOr(models.TournamentStatusUnknown, upstream,
		models.TournamentInPreparation, models.TournamentInProgress, models.TournamentEnded)
}
