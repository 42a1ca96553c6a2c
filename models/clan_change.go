package models

// ClanChange says that the history answers of a clan may have changed: a
// snapshot of it was stored, or its tracking started, stopped or had its
// weekly collection switched. All stands for every clan at once: the
// change listener (re)connected and may have missed notifications.
type ClanChange struct {
	Tag string
	All bool
}
