// Package scheduler is the periodic work of Crowns.
//
// TournamentRefresher keeps the known tournaments current: it discovers
// tournaments by searching the game upstream for configured terms, looks
// up again those that have not ended (when they grow stale, and as soon as
// their status is due to move on from preparation to progress to the
// end), forgets those the upstream no longer knows, and drops ended ones
// after a retention period. Its work is shared through the database, so
// several `crowns serve` processes on one database neither repeat nor
// double the upstream calls: the searches and the retention pass are
// periodic tasks one replica claims per period, and each lookup is leased
// to one replica. Tick does one pass at the injected clock's time, so tests
// drive it deterministically; Run ticks on a real ticker until its context
// ends.
package scheduler
