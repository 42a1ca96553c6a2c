package legacy

import (
	"time"

	"github.com/crownsdev/crowns/models"
)

// Tournament is one tournament in the legacy shape of GET /tournament/:tags:
// its header, the creator and the members in the upstream's order (by
// rank). Times not reached yet are null. The seed's fields come with the
// real legacy answer's names of some of them (Type, Capacity,
// MaxCapacity, PreparationDuration), which legacy clients read.
type Tournament struct {
	Tag string `json:"tag"`
	// Type is "open", "passwordProtected" or "unknown" (a type the game
	// API does not name); Open is true for "open" only.
	Type        string `json:"type"`
	Open        bool   `json:"open"`
	Status      string `json:"status"`
	Name        string `json:"name"`
	Description string `json:"description"`
	// Capacity is the current number of players.
	Capacity int `json:"capacity"`
	// MaxCapacity and MaxPlayers are both the most players it takes.
	MaxCapacity int `json:"maxCapacity"`
	MaxPlayers  int `json:"maxPlayers"`
	// PreparationDuration, PrepTime and Duration are seconds;
	// PreparationDuration and PrepTime are the same.
	PreparationDuration int `json:"preparationDuration"`
	PrepTime            int `json:"prepTime"`
	Duration            int `json:"duration"`
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
func NewTournament(t models.TournamentDetails) Tournament {
	out := Tournament{
		Tag:                 t.Tag,
		Type:                t.Type,
		Open:                t.Type == models.TournamentTypeOpen,
		Status:              t.Status,
		Name:                t.Name,
		Description:         t.Description,
		Capacity:            t.Capacity,
		MaxCapacity:         t.MaxCapacity,
		MaxPlayers:          t.MaxCapacity,
		PreparationDuration: t.PreparationDuration,
		PrepTime:            t.PreparationDuration,
		Duration:            t.Duration,
		StartTime:           unixOrNull(t.StartedTime),
		CreateTime:          unixOrZero(t.CreatedTime),
		Members:             make([]TournamentPlayer, len(t.Members)),
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

// unixOrZero is t in Unix seconds, or 0 for an unknown time (the zero
// time, which would be -62135596800): a creation time the game API did
// not give, or gave in a form it does not document.
func unixOrZero(t time.Time) int64 {
	if t.IsZero() {
		return 0
	}
	return t.Unix()
}

// unixOrNull is t in Unix seconds, or null for the zero time (a
// tournament not started or not ended yet).
func unixOrNull(t time.Time) *int64 {
	if t.IsZero() {
		return nil
	}
	seconds := t.Unix()
	return &seconds
}
