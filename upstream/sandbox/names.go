package sandbox

import (
	"fmt"
	"strings"
)

// Words of clan names. Several clans share words, so a name search finds a
// handful of clans as it does in the game.
var (
	clanAdjectives = []string{"Royal", "Dark", "Golden", "Silent", "Wild", "Iron", "Crimson", "Frozen", "Mighty", "Brave",
		"Lost", "Eternal", "Savage", "Noble", "Electric", "Lucky", "Ancient", "Shadow", "Rising", "Fearless",
		"Hidden", "Furious", "Polar", "Thunder", "Emerald", "Mystic", "Rogue", "Stone", "Blazing", "Lunar"}
	clanNouns = []string{"Knights", "Legion", "Crowns", "Warriors", "Dragons", "Wolves", "Giants", "Goblins", "Titans", "Kings",
		"Raiders", "Guardians", "Barbarians", "Wizards", "Hogs", "Phoenix", "Empire", "Alliance", "Order", "Brotherhood",
		"Squad", "Army", "Clan", "Family", "Tribe", "Valkyries", "Archers", "Rebels", "Hunters", "Pirates",
		"Lions", "Tigers", "Spartans", "Vikings", "Ninjas", "Samurai", "Elite", "Masters", "Legends", "Heroes"}
	playerStarts = []string{"Shadow", "King", "Lord", "Epic", "Tiny", "Crazy", "Pro", "Sir", "Dark", "Mega",
		"Ice", "Fire", "Hog", "Little", "Big", "Mr", "Lady", "Captain", "Sneaky", "Happy"}
	playerEnds = []string{"Slayer", "Hunter", "Wolf", "Knight", "Gamer", "Master", "Rider", "Ninja", "Prince", "Miner",
		"Bandit", "Wizard", "Dragon", "Panda", "Tiger", "Fox", "Storm", "Blade", "Boss", "Legend"}
	tournamentWords = []string{"Cup", "Brawl", "Clash", "Showdown", "Arena", "Open", "Masters", "League", "Battle", "Championship"}
	tournamentHosts = []string{"Friday", "Weekend", "Midnight", "Royal", "Golden", "Rookie", "Pro", "Legendary", "Community", "Draft",
		"Classic", "Sudden", "Triple", "Elixir", "Crown"}
)

// Clan descriptions without the tracking address.
var plainDescriptions = []string{
	"Active players only. Donate every day and play your war battles.",
	"Welcome! Friendly family clan, all ages.",
	"War every day. Inactive members get kicked after 7 days.",
	"Chill clan, just for fun.",
	"Top clan of the region. Request elder after two weeks of donations.",
	"Join our Discord to plan the next war.",
	"Donations matter: 300 per week minimum.",
	"",
	"Looking for strong players for river races.",
	"Respect everyone, donate, have fun.",
}

// trackedDescription is a clan description that carries the tracking
// address, in one of several casings and places.
func trackedDescription(d *draw, address, tag string) string {
	shown := address
	switch d.intn(3) {
	case 1:
		shown = strings.ToUpper(address)
	case 2:
		shown = strings.ToUpper(address[:1]) + address[1:]
	}
	switch d.intn(5) {
	case 0:
		return "Stats at " + shown
	case 1:
		return shown + " tracked! Active players only."
	case 2:
		return fmt.Sprintf("Welcome! History: https://%s/clan/%s - donate daily", shown, tag)
	case 3:
		return "War every day | " + shown + " | be nice"
	default:
		return "We track our clan on " + shown + " :)"
	}
}

// nearMissDescription names the address in a way that must not count as
// carrying it ("crowns dot example").
func nearMissDescription(address string) string {
	return "Stats soon on " + strings.Replace(address, ".", " dot ", 1)
}

// clanName is a clan name built from the shared word lists.
func clanName(d *draw) string {
	adjective, noun := pick(d, clanAdjectives), pick(d, clanNouns)
	switch d.intn(10) {
	case 0:
		return "The " + adjective + " " + noun
	case 1:
		return strings.ToLower(adjective + " " + noun)
	case 2:
		return adjective + noun
	case 3:
		return fmt.Sprintf("%s %s %d", adjective, noun, d.between(2, 9))
	case 4:
		return noun + " of " + pick(d, clanNouns)
	default:
		return adjective + " " + noun
	}
}

// playerName is a player's nickname.
func playerName(d *draw) string {
	start, end := pick(d, playerStarts), pick(d, playerEnds)
	switch d.intn(6) {
	case 0:
		return fmt.Sprintf("%s%s%d", start, end, d.between(1, 999))
	case 1:
		return strings.ToLower(start + "_" + end)
	case 2:
		return end
	default:
		return start + " " + end
	}
}

// tournamentName is a tournament name built from the shared word lists.
func tournamentName(d *draw) string {
	name := pick(d, tournamentHosts) + " " + pick(d, tournamentWords)
	if d.percent(30) {
		name += fmt.Sprintf(" #%d", d.between(1, 99))
	}
	return name
}

// tournamentDescriptions are what tournament creators write.
var tournamentDescriptions = []string{
	"Have fun and play fair!",
	"Prize for the top 3 in the clan chat.",
	"No spamming emotes please.",
	"Open to everyone, good luck.",
	"Practice for the weekend war.",
	"",
}
