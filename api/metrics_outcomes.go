package api

import (
	"errors"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/crownsdev/crowns/models"
)

// cacheKind is a kind of cached answer, the cache label of the cache
// metrics.
type cacheKind int

const (
	cacheBattles cacheKind = iota
	cacheClanSearch
	cacheTournament
	cacheHistory
	cacheKeyStats
	cacheKindCount
)

func (k cacheKind) String() string {
	switch k {
	case cacheBattles:
		return "battles"
	case cacheClanSearch:
		return "clan_search"
	case cacheTournament:
		return "tournament"
	case cacheKeyStats:
		return "key_stats"
	}
	return "history"
}

// limitReason is which limit refused a request, the reason label of the
// rate-limited metric.
type limitReason int

const (
	// limitKey is the key's own token bucket (429).
	limitKey limitReason = iota
	// limitLookups is the client address's budget of key lookups (429).
	limitLookups
	// limitLookupsOverall is all clients' budget of key lookups (503).
	limitLookupsOverall
	// limitGameCalls is the key's budget of game-API calls (429).
	limitGameCalls
	// limitConnections is the client address's bound on open
	// connections (429, answered by the listener).
	limitConnections
	// limitLargeBodies is the bound on the memory of leak reports' bodies
	// being read (503, answered before the body is read).
	limitLargeBodies
	limitReasonCount
)

func (r limitReason) String() string {
	switch r {
	case limitKey:
		return "key"
	case limitLookups:
		return "lookups"
	case limitLookupsOverall:
		return "lookups_overall"
	case limitConnections:
		return "connections"
	case limitLargeBodies:
		return "large_bodies"
	}
	return "game_calls"
}

// verdict is the outcome of a key verification, the outcome label of the
// verification metric.
type verdict int

const (
	verdictOK verdict = iota
	verdictUnknown
	verdictDisabled
	verdictBlacklisted
	verdictUnavailable
	verdictCount
)

func (v verdict) String() string {
	switch v {
	case verdictOK:
		return "ok"
	case verdictUnknown:
		return "unknown"
	case verdictDisabled:
		return "disabled"
	case verdictBlacklisted:
		return "blacklisted"
	}
	return "unavailable"
}

// verdictOf names the outcome of a verification that returned err.
func verdictOf(err error) verdict {
	switch {
	case err == nil:
		return verdictOK
	case errors.Is(err, models.ErrUnknownKey):
		return verdictUnknown
	case errors.Is(err, models.ErrKeyDisabled):
		return verdictDisabled
	case errors.Is(err, models.ErrKeyBlacklisted):
		return verdictBlacklisted
	}
	return verdictUnavailable
}

// outcomeMetrics count what the API's mechanisms decided: cache lookups,
// key verifications and refusals by a limit. Every label child is bound
// at construction, so that recording is one counter increment.
type outcomeMetrics struct {
	// cache is by kind, then [miss, hit].
	cache [cacheKindCount][2]prometheus.Counter
	// verifications is by [verified in the database, from memory], then
	// verdict.
	verifications [verdictSourceCount][verdictCount]prometheus.Counter
	limited       [limitReasonCount]prometheus.Counter
}

// register registers the outcome metrics with reg and binds their
// children.
func (m *outcomeMetrics) register(reg prometheus.Registerer) error {
	cache := prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "crowns_cache_lookups_total",
		Help: "Lookups of the response cache, by kind of answer (battles, clan_search, tournament, history, key_stats) and result (hit, miss).",
	}, []string{"cache", "result"})
	verifications := prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "crowns_key_verifications_total",
		Help: "Developer-key verifications, by outcome (ok, unknown, disabled, blacklisted, unavailable) and where the verdict came from: the verification cache knew the key (cache=hit), the database was asked (cache=miss), or the key was refused by its form alone, malformed or with a wrong checksum (cache=none).",
	}, []string{"outcome", "cache"})
	limited := prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "crowns_rate_limited_total",
		Help: "Requests refused by a limit, by reason: key (the key's rate limit, 429), lookups (the client address's key-lookup budget, 429), lookups_overall (all clients' key-lookup budget, 503), game_calls (the key's game-API call budget, 429), connections (a connection past the client address's bound on open connections, 429), large_bodies (a leak report over 16 KiB past the announced length the server takes in at a time, 503).",
	}, []string{"reason"})
	for _, c := range []prometheus.Collector{cache, verifications, limited} {
		if err := reg.Register(c); err != nil {
			return err
		}
	}
	results := [2]string{"miss", "hit"}
	for k := range cacheKindCount {
		for i, result := range results {
			m.cache[k][i] = cache.WithLabelValues(k.String(), result)
		}
	}
	for source := range verdictSourceCount {
		for v := range verdictCount {
			m.verifications[source][v] = verifications.WithLabelValues(v.String(), source.String())
		}
	}
	for r := range limitReasonCount {
		m.limited[r] = limited.WithLabelValues(r.String())
	}
	return nil
}

// cacheLookup counts one lookup of a cached answer of kind.
func (m *requestMetrics) cacheLookup(kind cacheKind, hit bool) {
	if m != nil {
		m.outcomes.cache[kind][boolToInt(hit)].Inc()
	}
}

// keyVerified counts one key verification that ended with err, its
// verdict given by source.
func (m *requestMetrics) keyVerified(source verdictSource, err error) {
	if m != nil {
		m.outcomes.verifications[source][verdictOf(err)].Inc()
	}
}

// verdictSource is where a key's verdict came from.
type verdictSource int

const (
	// verdictFromDatabase: the database was asked (cache=miss).
	verdictFromDatabase verdictSource = iota
	// verdictFromCache: the verification cache knew the key (cache=hit).
	verdictFromCache
	// verdictFromForm: the key was refused by its form alone, neither
	// cache nor database asked (cache=none).
	verdictFromForm
	verdictSourceCount
)

func (s verdictSource) String() string {
	switch s {
	case verdictFromCache:
		return "hit"
	case verdictFromForm:
		return "none"
	}
	return "miss"
}

// refusedBy counts one request refused by a limit.
func (m *requestMetrics) refusedBy(reason limitReason) {
	if m != nil {
		m.outcomes.limited[reason].Inc()
	}
}

// lookupRefused counts a request the key-lookup budget refused with err:
// the client's own budget (a rateLimitedError) or all clients'.
func (m *requestMetrics) lookupRefused(err error) {
	var limited *rateLimitedError
	if errors.As(err, &limited) {
		m.refusedBy(limitLookups)
		return
	}
	m.refusedBy(limitLookupsOverall)
}
