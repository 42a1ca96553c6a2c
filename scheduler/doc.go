// Package scheduler is the periodic work of Crowns: clan snapshots and
// clan tracking on request, and the refresh of stored tournaments.
//
// Every tracked clan is snapshotted at each 4-hourly slot (00, 04, 08, 12,
// 16, 20 UTC) and, when weekly collection is enabled, at each weekly slot
// (Mondays 23:00 UTC). The work of each (clan, kind, slot) is a row of
// snapshot_jobs, created by whichever replica plans the slot first and
// claimed through the database with a lease, so several `crowns serve`
// processes on one database fetch each (clan, slot) once and leave none
// out; a crashed claimant's job is taken over when its lease expires. A
// failed fetch is retried with jittered backoff until the slot's window
// ends, then the slot is recorded as missed; nothing is ever stored for a
// slot from data fetched outside its window. Slots no scheduler planned,
// every replica having been down through their windows, are recorded as
// missed by the first scheduler back. Retention keeps whole UTC days.
//
// Scheduler.Tick does one pass at the injected clock's time (plan the
// current slots, record the slots no scheduler planned, record expired
// jobs as missed, run every due job, prune
// old history when due), so tests drive it deterministically; Scheduler.Run
// ticks on a real ticker until its context ends, logging failed ticks as
// package outage does (when they start, a reminder a minute, when they
// end).
//
// TournamentRefresher keeps the stored tournaments current: it discovers
// tournaments by searching the game upstream for configured terms, looks
// up again those that have not ended (when they grow stale, and as soon as
// their status is due to move on from preparation to progress to the
// end), forgets those the upstream no longer knows, and drops ended ones
// after a retention period. Its work is shared through the database too:
// the searches and the retention pass are periodic tasks one replica
// claims per period, and each lookup is leased to one replica.
// TournamentRefresher.Tick and Run work like the Scheduler's.
package scheduler
