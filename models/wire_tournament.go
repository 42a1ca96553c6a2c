package models

// Tournament is one tournament in the legacy shape of GET /tournament/:tags:
// its header, the creator and the members in the upstream's order (by
// rank). Times not reached yet are null.
type Tournament struct {
	Tag         string `json:"tag"`
	Open        bool   `json:"open"`
	Status      string `json:"status"`
	Name        string `json:"name"`
	Description string `json:"description"`
	MaxPlayers  int    `json:"maxPlayers"`
	// PrepTime and Duration are seconds.
	PrepTime int `json:"prepTime"`
	Duration int `json:"duration"`
	// EndedTime is the upstream's compact form, e.g. "20171227T034657.000Z".
	EndedTime  *string `json:"endedTime"`
	StartTime  *int64  `json:"startTime"`
	CreateTime int64   `json:"createTime"`
	// Creator is null when the upstream names no creator.
	Creator *TournamentPlayer  `json:"creator"`
	Members []TournamentPlayer `json:"members"`
}

// TournamentPlayer is a creator or member of a tournament with their score.
type TournamentPlayer struct {
	Tag   string `json:"tag"`
	Name  string `json:"name"`
	Score int    `json:"score"`
}

// NewTournament maps a tournament looked up upstream into the legacy
// shape. The creator's name and score come from the member list when the
// creator is a member; otherwise they are empty and 0.
func NewTournament(t TournamentDetails) Tournament {
	out := Tournament{
		Tag:         t.Tag,
		Open:        t.Type == TournamentTypeOpen,
		Status:      t.Status,
		Name:        t.Name,
		Description: t.Description,
		MaxPlayers:  t.MaxCapacity,
		PrepTime:    t.PreparationDuration,
		Duration:    t.Duration,
		StartTime:   unixOrNull(t.StartedTime),
		CreateTime:  t.CreatedTime.Unix(),
		Members:     make([]TournamentPlayer, len(t.Members)),
	}
	if t.EndedTimeRaw != "" {
		ended := t.EndedTimeRaw
		out.EndedTime = &ended
	}
	for i, m := range t.Members {
		out.Members[i] = TournamentPlayer{Tag: m.Tag, Name: m.Name, Score: m.Score}
	}
	if t.CreatorTag != "" {
		out.Creator = &TournamentPlayer{Tag: t.CreatorTag}
		for _, m := range out.Members {
			if m.Tag == t.CreatorTag {
				*out.Creator = m
				break
			}
		}
	}
	return out
}

// TournamentListItem is a known tournament in the legacy shape of the
// 1k, full, inprep and joinable lists. Members is always empty: the
// member list is GET /tournament/:tags's.
type TournamentListItem struct {
	Tag            string             `json:"tag"`
	Name           string             `json:"name"`
	Open           bool               `json:"open"`
	MaxPlayers     int                `json:"maxPlayers"`
	CurrentPlayers int                `json:"currentPlayers"`
	Status         string             `json:"status"`
	CreateTime     int64              `json:"createTime"`
	PrepTime       int                `json:"prepTime"`
	StartTime      *int64             `json:"startTime"`
	EndTime        *int64             `json:"endTime"`
	Duration       int                `json:"duration"`
	Description    string             `json:"description"`
	UpdatedAt      int64              `json:"updatedAt"`
	Members        []TournamentPlayer `json:"members"`
}

// ListItem is the record in the shape of the 1k, full, inprep and
// joinable lists.
func (r TournamentRecord) ListItem() TournamentListItem {
	return TournamentListItem{
		Tag:            r.Tag,
		Name:           r.Name,
		Open:           r.Type == TournamentTypeOpen,
		MaxPlayers:     r.MaxCapacity,
		CurrentPlayers: r.Capacity,
		Status:         r.Status,
		CreateTime:     r.CreatedTime.Unix(),
		PrepTime:       r.PreparationDuration,
		StartTime:      unixOrNull(r.StartedTime),
		EndTime:        unixOrNull(r.EndedTime),
		Duration:       r.Duration,
		Description:    r.Description,
		UpdatedAt:      r.UpdatedAt.Unix(),
		Members:        []TournamentPlayer{},
	}
}

// KnownTournament is a known tournament in the legacy shape of the known
// and open lists, which name fields as the upstream does; Capacity and
// PlayerCount are both the current number of players.
type KnownTournament struct {
	Tag                 string `json:"tag"`
	Type                string `json:"type"`
	Status              string `json:"status"`
	Name                string `json:"name"`
	Capacity            int    `json:"capacity"`
	PlayerCount         int    `json:"playerCount"`
	MaxCapacity         int    `json:"maxCapacity"`
	PreparationDuration int    `json:"preparationDuration"`
	Duration            int    `json:"duration"`
	CreateTime          int64  `json:"createTime"`
	StartTime           *int64 `json:"startTime"`
	EndTime             *int64 `json:"endTime"`
}

// Known is the record in the shape of the known and open lists.
func (r TournamentRecord) Known() KnownTournament {
	return KnownTournament{
		Tag:                 r.Tag,
		Type:                r.Type,
		Status:              r.Status,
		Name:                r.Name,
		Capacity:            r.Capacity,
		PlayerCount:         r.Capacity,
		MaxCapacity:         r.MaxCapacity,
		PreparationDuration: r.PreparationDuration,
		Duration:            r.Duration,
		CreateTime:          r.CreatedTime.Unix(),
		StartTime:           unixOrNull(r.StartedTime),
		EndTime:             unixOrNull(r.EndedTime),
	}
}
