package catalog

import "slices"

// Arena is one arena or league of the trophy road.
type Arena struct {
	// ID is the game upstream's arena id: 54000000 + Number - 1.
	ID int `json:"id"`
	// Number is the legacy arena number ("arenaID" in legacy battles).
	Number int    `json:"number"`
	Name   string `json:"name"`
	// Label is "Arena N" for arenas and "League N" for leagues.
	Label string `json:"label"`
	// TrophyLimit is the trophy count that reaches this arena.
	TrophyLimit int `json:"trophyLimit"`
}

// Arena returns the arena of the upstream id, if the catalog has it.
func (c *Catalog) Arena(id int) (Arena, bool) { return lookup(c.arenas, c.arenaAt, id) }

// Arenas returns every arena, by rising trophy limit.
func (c *Catalog) Arenas() []Arena { return slices.Clone(c.arenas) }

// ArenaForTrophies returns the highest arena a player with that many
// trophies has reached.
func (c *Catalog) ArenaForTrophies(trophies int) Arena {
	reached := c.arenas[0]
	for _, a := range c.arenas {
		if a.TrophyLimit > trophies {
			break
		}
		reached = a
	}
	return reached
}
