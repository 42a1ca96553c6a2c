// Package sandbox is a deterministic, offline game world served in the
// official API's wire format under /v1: thousands of clans with members,
// players with battle logs, tournaments of every status, the card list and
// the locations. Crowns uses it when no upstream token is configured, for
// demos (crowns sandbox) and in tests, where the real upstream client talks
// to it over HTTP.
//
// The world is a function of its seed and of the injected clock: the same
// seed at the same clock time answers byte-identical responses, and as the
// clock moves, member trophies, donations (reset every Monday), clan chest
// points, ranks and battle logs change, and tournaments go from preparation
// to progress to their end. Only the clans' profiles are held in memory
// (a few hundred bytes each); members, battles and tournaments are derived on
// demand from per-entity seeds.
package sandbox
