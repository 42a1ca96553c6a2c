// Package models holds the domain of Crowns: the database records (developers,
// keys, key events, tracked clans, snapshots, tournaments), the wire shapes the
// public API returns, the sentinel errors every role maps from, tag rules, and
// the Store that opens, migrates and queries the database.
//
// models never imports a transport (no Fiber, no discordgo); every role builds
// on it.
package models
