// Package catalog holds the game facts Crowns maintains itself and embeds in
// the binary: cards (name, key, elixir, type, rarity, unlock arena and a
// short description), clan badges, arenas and locations, plus the rarity
// rules (maximum level, cards needed to upgrade).
//
// The upstream client uses the catalog to render battles and clan badges in
// the legacy shapes; the sandbox uses it to build its world. The data is the
// project's own; a fact the catalog lacks is simply absent (lookups report
// ok == false) and callers fall back to what the game upstream gave.
package catalog
