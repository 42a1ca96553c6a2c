package legacy

import "github.com/crownsdev/crowns/models"

// The legacy shapes of the tournament lists' elements, one per field set
// of the seed: KnownTournament (known, open, joinable), ThousandTournament
// (1k), FullTournament (full) and PreparingTournament (inprep). Each is
// the fields all share (listedTournament) and its own.

// listedTournament is the fields every list element has. Times are Unix
// seconds, StartTime and EndTime null until the tournament started /
// ended; PrepTime and Duration are seconds; Open is true for a tournament
// without a password; CurrentPlayers is the number of players.
type listedTournament struct {
	Tag            string `json:"tag"`
	Name           string `json:"name"`
	Open           bool   `json:"open"`
	Status         string `json:"status"`
	CurrentPlayers int    `json:"currentPlayers"`
	CreateTime     int64  `json:"createTime"`
	PrepTime       int    `json:"prepTime"`
	StartTime      *int64 `json:"startTime"`
	EndTime        *int64 `json:"endTime"`
	Duration       int    `json:"duration"`
}

// listedOf is the record's fields that every list element has.
func listedOf(r models.TournamentRecord) listedTournament {
	return listedTournament{
		Tag:            r.Tag,
		Name:           r.Name,
		Open:           r.Type == models.TournamentTypeOpen,
		Status:         r.Status,
		CurrentPlayers: r.Capacity,
		CreateTime:     r.CreatedTime.Unix(),
		PrepTime:       r.PreparationDuration,
		StartTime:      unixOrNull(r.StartedTime),
		EndTime:        unixOrNull(r.EndedTime),
		Duration:       r.Duration,
	}
}

// KnownTournament is an element of the known, open and joinable lists.
// MaxPlayers is the most players the tournament takes.
type KnownTournament struct {
	listedTournament
	MaxPlayers int `json:"maxPlayers"`
}

// NewKnownTournament is the record in the shape of the known, open and joinable lists.
func NewKnownTournament(r models.TournamentRecord) KnownTournament {
	return KnownTournament{listedTournament: listedOf(r), MaxPlayers: r.MaxCapacity}
}

// PreparingTournament is an element of the inprep list. MaxCapacity is
// the most players the tournament takes.
type PreparingTournament struct {
	listedTournament
	MaxCapacity int `json:"maxCapacity"`
}

// NewPreparingTournament is the record in the shape of the inprep list.
func NewPreparingTournament(r models.TournamentRecord) PreparingTournament {
	return PreparingTournament{listedTournament: listedOf(r), MaxCapacity: r.MaxCapacity}
}

// ThousandTournament is an element of the 1k list. UpdatedAt is when
// Crowns last saw the tournament upstream (Unix seconds); MaxCapacity the
// most players it takes.
type ThousandTournament struct {
	listedTournament
	Description string `json:"description"`
	UpdatedAt   int64  `json:"updatedAt"`
	MaxCapacity int    `json:"maxCapacity"`
}

// NewThousandTournament is the record in the shape of the 1k list.
func NewThousandTournament(r models.TournamentRecord) ThousandTournament {
	return ThousandTournament{
		listedTournament: listedOf(r), Description: r.Description, UpdatedAt: r.UpdatedAt.Unix(), MaxCapacity: r.MaxCapacity,
	}
}

// FullTournament is an element of the full list. UpdatedAt is when Crowns
// last saw the tournament upstream (Unix seconds); MaxPlayers the most
// players it takes. Members is always empty: members are not stored (they
// are GET /tournament/:tags's).
type FullTournament struct {
	listedTournament
	MaxPlayers  int                `json:"maxPlayers"`
	Description string             `json:"description"`
	UpdatedAt   int64              `json:"updatedAt"`
	Members     []TournamentPlayer `json:"members"`
}

// NewFullTournament is the record in the shape of the full list.
func NewFullTournament(r models.TournamentRecord) FullTournament {
	return FullTournament{
		listedTournament: listedOf(r), MaxPlayers: r.MaxCapacity, Description: r.Description,
		UpdatedAt: r.UpdatedAt.Unix(), Members: []TournamentPlayer{},
	}
}
