package legacy

import "github.com/crownsdev/crowns/models"

// The legacy shapes of the tournament lists' elements, one per field set
// of the seed: KnownTournament (known, open, joinable), ThousandTournament
// (1k), FullTournament (full) and PreparingTournament (inprep). Each
// writes its fields in the order of the seed's table of its list, which
// is the order of the legacy API's list answers.
//
// In all of them times are Unix seconds, StartTime and EndTime null until
// the tournament started / ended; PrepTime and Duration are seconds; Open
// is true for a tournament without a password (type "open", which an
// unknown type is not); CurrentPlayers is the number of players.

// listed is the record's values that every list element has.
type listed struct {
	open                     bool
	currentPlayers, prepTime int
	duration                 int
	createTime               int64
	startTime, endTime       *int64
}

// listedOf is the record's values that every list element has.
func listedOf(r models.TournamentRecord) listed {
	return listed{
		open:           r.Type == models.TournamentTypeOpen,
		currentPlayers: r.Capacity,
		prepTime:       r.PreparationDuration,
		duration:       r.Duration,
		createTime:     unixOrZero(r.CreatedTime),
		startTime:      unixOrNull(r.StartedTime),
		endTime:        unixOrNull(r.EndedTime),
	}
}

// KnownTournament is an element of the known, open and joinable lists.
// MaxPlayers is the most players the tournament takes.
type KnownTournament struct {
	Tag            string `json:"tag"`
	Open           bool   `json:"open"`
	Status         string `json:"status"`
	Name           string `json:"name"`
	CurrentPlayers int    `json:"currentPlayers"`
	MaxPlayers     int    `json:"maxPlayers"`
	PrepTime       int    `json:"prepTime"`
	Duration       int    `json:"duration"`
	CreateTime     int64  `json:"createTime"`
	StartTime      *int64 `json:"startTime"`
	EndTime        *int64 `json:"endTime"`
}

// NewKnownTournament is the record in the shape of the known, open and joinable lists.
func NewKnownTournament(r models.TournamentRecord) KnownTournament {
	l := listedOf(r)
	return KnownTournament{
		Tag: r.Tag, Open: l.open, Status: r.Status, Name: r.Name, CurrentPlayers: l.currentPlayers,
		MaxPlayers: r.MaxCapacity, PrepTime: l.prepTime, Duration: l.duration, CreateTime: l.createTime,
		StartTime: l.startTime, EndTime: l.endTime,
	}
}

// PreparingTournament is an element of the inprep list. MaxCapacity is
// the most players the tournament takes.
type PreparingTournament struct {
	Tag            string `json:"tag"`
	Open           bool   `json:"open"`
	Status         string `json:"status"`
	Name           string `json:"name"`
	CurrentPlayers int    `json:"currentPlayers"`
	MaxCapacity    int    `json:"maxCapacity"`
	PrepTime       int    `json:"prepTime"`
	Duration       int    `json:"duration"`
	CreateTime     int64  `json:"createTime"`
	StartTime      *int64 `json:"startTime"`
	EndTime        *int64 `json:"endTime"`
}

// NewPreparingTournament is the record in the shape of the inprep list.
func NewPreparingTournament(r models.TournamentRecord) PreparingTournament {
	l := listedOf(r)
	return PreparingTournament{
		Tag: r.Tag, Open: l.open, Status: r.Status, Name: r.Name, CurrentPlayers: l.currentPlayers,
		MaxCapacity: r.MaxCapacity, PrepTime: l.prepTime, Duration: l.duration, CreateTime: l.createTime,
		StartTime: l.startTime, EndTime: l.endTime,
	}
}

// ThousandTournament is an element of the 1k list. UpdatedAt is when
// Crowns last saw the tournament upstream (Unix seconds); MaxCapacity the
// most players it takes.
type ThousandTournament struct {
	Tag            string `json:"tag"`
	Name           string `json:"name"`
	Open           bool   `json:"open"`
	CurrentPlayers int    `json:"currentPlayers"`
	Status         string `json:"status"`
	CreateTime     int64  `json:"createTime"`
	PrepTime       int    `json:"prepTime"`
	StartTime      *int64 `json:"startTime"`
	EndTime        *int64 `json:"endTime"`
	Duration       int    `json:"duration"`
	Description    string `json:"description"`
	UpdatedAt      int64  `json:"updatedAt"`
	MaxCapacity    int    `json:"maxCapacity"`
}

// NewThousandTournament is the record in the shape of the 1k list.
func NewThousandTournament(r models.TournamentRecord) ThousandTournament {
	l := listedOf(r)
	return ThousandTournament{
		Tag: r.Tag, Name: r.Name, Open: l.open, CurrentPlayers: l.currentPlayers, Status: r.Status,
		CreateTime: l.createTime, PrepTime: l.prepTime, StartTime: l.startTime, EndTime: l.endTime,
		Duration: l.duration, Description: r.Description, UpdatedAt: r.UpdatedAt.Unix(), MaxCapacity: r.MaxCapacity,
	}
}

// FullTournament is an element of the full list. UpdatedAt is when Crowns
// last saw the tournament upstream (Unix seconds); MaxPlayers the most
// players it takes. Members is always empty: members are not stored (they
// are GET /tournament/:tags's).
type FullTournament struct {
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

// NewFullTournament is the record in the shape of the full list.
func NewFullTournament(r models.TournamentRecord) FullTournament {
	l := listedOf(r)
	return FullTournament{
		Tag: r.Tag, Name: r.Name, Open: l.open, MaxPlayers: r.MaxCapacity, CurrentPlayers: l.currentPlayers,
		Status: r.Status, CreateTime: l.createTime, PrepTime: l.prepTime, StartTime: l.startTime, EndTime: l.endTime,
		Duration: l.duration, Description: r.Description, UpdatedAt: r.UpdatedAt.Unix(), Members: []TournamentPlayer{},
	}
}
