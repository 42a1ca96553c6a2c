// Package legacy holds the legacy API's response shapes Crowns answers
// with: battles, clan search results, clan history (with its hand-written
// encoder, byte for byte what encoding/json writes), tournaments and the
// elements of the tournament lists. It builds them from the records of
// package models and imports nothing else of Crowns.
package legacy
