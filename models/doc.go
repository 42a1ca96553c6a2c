// Package models holds the domain of Crowns: the records (developers, keys,
// key events, tracked clans, snapshots and their slot arithmetic,
// tournaments), the query and value types the roles pass around, tag
// rules, the sentinel errors every role maps from, and the clock.
//
// It imports only the standard library and GORM (for the records' tags);
// all SQL lives in models/store and the legacy response shapes in
// models/legacy.
package models
