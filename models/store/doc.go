// Package store holds all of Crowns' SQL in one Store: opening the
// database (SQLite or PostgreSQL) and its migrations, key rows and key
// events, clan tracking, snapshots and their compact encoding, monthly
// partitions and retention, the snapshot job queue and the record of
// slots no scheduler planned, tournaments, the player dictionary, the
// game catalog copies, the bot's cursors, key usage counts, the replica
// registry, the deployment's secret check, the statement counter and the
// clan-change feed (LISTEN/NOTIFY on PostgreSQL, the clan_changes outbox
// on SQLite, in-process subscribers everywhere).
//
// Driver errors are translated into the sentinel errors of package models
// at this boundary. It imports models and database drivers only, never a
// transport.
package store
