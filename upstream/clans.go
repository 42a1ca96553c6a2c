package upstream

import (
	"context"
	"net/url"
	"strconv"

	"github.com/crownsdev/crowns/models/legacy"

	"github.com/crownsdev/crowns/models"
	"github.com/crownsdev/crowns/upstream/catalog"
	"github.com/crownsdev/crowns/upstream/official"
)

// invalidSearchMessage is the caller-safe text of a clan search the game
// API rejects.
const invalidSearchMessage = "invalid clan search: the game API rejected these filters or cursors"

// SearchClans runs a clan search (GET /clans) and returns one page in the
// legacy shape with the upstream's paging cursors.
func (c *Client) SearchClans(ctx context.Context, q legacy.ClanSearchQuery) (legacy.ClanSearchPage, error) {
	var list official.List[official.Clan]
	if err := c.get(ctx, request{path: "/clans", query: searchParams(q), invalid: invalidSearchMessage, endpoint: endpointClans, answers: listed(&list.Items)}, &list); err != nil {
		return legacy.ClanSearchPage{}, err
	}
	page := legacy.ClanSearchPage{Items: make([]legacy.ClanSearchResult, 0, len(list.Items))}
	for _, clan := range list.Items {
		page.Items = append(page.Items, c.searchResult(clan))
	}
	if list.Paging != nil {
		page.After, page.Before = list.Paging.Cursors.After, list.Paging.Cursors.Before
	}
	return page, nil
}

// searchParams maps a validated search to the official query parameters;
// unset filters are left out (MinScore is unset at -1, 0 is a filter).
func searchParams(q legacy.ClanSearchQuery) url.Values {
	params := url.Values{}
	setPositive := func(name string, v int) {
		if v > 0 {
			params.Set(name, strconv.Itoa(v))
		}
	}
	if q.Name != "" {
		params.Set("name", q.Name)
	}
	setPositive("locationId", q.LocationID)
	setPositive("minMembers", q.MinMembers)
	setPositive("maxMembers", q.MaxMembers)
	if q.MinScore >= 0 {
		params.Set("minScore", strconv.Itoa(q.MinScore))
	}
	setPositive("limit", q.Limit)
	if q.After != "" {
		params.Set("after", q.After)
	}
	if q.Before != "" {
		params.Set("before", q.Before)
	}
	return params
}

func (c *Client) searchResult(clan official.Clan) legacy.ClanSearchResult {
	return legacy.ClanSearchResult{
		Tag:           bareTag(clan.Tag),
		Name:          clan.Name,
		Type:          legacyClanType(clan.Type),
		Score:         clan.ClanScore,
		MemberCount:   clan.Members,
		RequiredScore: clan.RequiredTrophies,
		Donations:     clan.DonationsPerWeek,
		Badge:         c.badge(clan.BadgeID),
		Location:      legacyLocation(c.Catalog(), clan.Location),
	}
}

// Clan returns a clan with its member list (GET /clans/%23TAG).
func (c *Client) Clan(ctx context.Context, tag string) (models.ClanDetails, error) {
	var clan official.Clan
	if err := c.get(ctx, request{path: "/clans/" + tagPath(tag), endpoint: endpointClan, answers: sameTag(tag, &clan.Tag)}, &clan); err != nil {
		return models.ClanDetails{}, err
	}
	return clanDetailsOf(c.Catalog(), clan), nil
}

// clanDetailsOf maps a clan of the official API to the clan record the
// rest of Crowns uses, looking region codes up in known (nil: none).
func clanDetailsOf(known *catalog.Catalog, clan official.Clan) models.ClanDetails {
	details := models.ClanDetails{
		Tag:              bareTag(clan.Tag),
		Name:             clan.Name,
		Type:             legacyClanType(clan.Type),
		Description:      clan.Description,
		BadgeID:          clan.BadgeID,
		Score:            clan.ClanScore,
		RequiredScore:    clan.RequiredTrophies,
		DonationsPerWeek: clan.DonationsPerWeek,
		MemberCount:      clan.Members,
		Location:         legacyLocation(known, clan.Location),
		Members:          make([]models.ClanMember, 0, len(clan.MemberList)),
	}
	for _, m := range clan.MemberList {
		details.Members = append(details.Members, models.ClanMember{
			Tag:               bareTag(m.Tag),
			Name:              m.Name,
			Role:              m.Role,
			ExpLevel:          m.ExpLevel,
			Trophies:          m.Trophies,
			ClanRank:          m.ClanRank,
			Donations:         m.Donations,
			DonationsReceived: m.DonationsReceived,
			ClanChestPoints:   valueOrZero(m.ClanChestPoints),
		})
	}
	return details
}

func valueOrZero(p *int) int {
	if p == nil {
		return 0
	}
	return *p
}
